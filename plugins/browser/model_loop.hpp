// The model mode of an attempt: the tool-calling loop. The model gets the prompt (and, on a
// resume, the saved conversation before it), answers with text and tool calls; each call
// runs as a browser action and its result goes back, until the model calls finish, answers
// with text alone, or maxSteps model calls have been made.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "agentry/plugin_common/runtime/http.hpp"
#include "browser/model_settings.hpp"
#include "browser/settings.hpp"

namespace agentry::browser {

struct ToolOutcome {
  bool ok = false;
  std::string output;       // what happened, or why it failed: the text the model gets back
  bool fatal = false;       // the browser is gone or the attempt is interrupted: stop the loop
};

// What the loop needs from its attempt (Attempt fills it in).
struct LoopHost {
  boost::asio::any_io_executor io;                                // the attempt's executor
  std::shared_ptr<plugin_common::runtime::HttpCall>& model_call;  // the call in flight, for an interrupt
  // Runs one action with its TOOL_STARTED/TOOL_COMPLETED events, `call_id` as toolCallId.
  std::function<boost::asio::awaitable<ToolOutcome>(const Step& step, std::size_t index, const std::string& call_id)> run_tool;
  std::function<void(uint16_t type, const boost::json::object& payload)> send;
  std::function<bool()> stopping;  // interrupted
};

struct LoopInput {
  const ModelSettings& model;
  std::string prompt;
  std::string conversation_path;  // <profile dir>/conversation.json
  bool resumed = false;           // continue the saved conversation
  uint32_t attempt_number = 0;    // for item ids
};

// The attempt's outcome ("success", "error", "interrupted") and message.
// [executor]
boost::asio::awaitable<std::pair<std::string, std::string>> run_model_loop(const LoopInput& input, const LoopHost& host);

}  // namespace agentry::browser
