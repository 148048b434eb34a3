// The tools the model mode offers: one per action of the script language, with the same
// names and arguments, so a tool call becomes a Step and runs through Attempt::act like a
// scripted one. Also the system prompts of the model mode and of asks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "browser/conversation.hpp"
#include "browser/model_api.hpp"
#include "browser/settings.hpp"

namespace agentry::browser {

// navigate, click, type, press, scroll, read, screenshot, back, waitFor, download, finish.
const std::vector<ToolSpec>& browser_tools();

// The step a tool call asks for, or nullopt with `error` (for the model: what to fix).
std::optional<Step> step_of(const ToolCall& call, std::string& error);

// The instructions of the tool-calling loop.
const std::string& model_mode_system_prompt();
// The instructions of an ask: answer about the task's state, act on nothing.
const std::string& ask_system_prompt();

}  // namespace agentry::browser
