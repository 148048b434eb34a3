// The browser's actions, one table for the script language and the model's tools: each
// action's name, what it does (the model's tool description), its arguments' JSON schema,
// the one-line command the timeline shows, and the Attempt member that carries it out.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include "browser/settings.hpp"

namespace agentry::browser {

class Attempt;

// What an action's handler gets: the step, its number, its deadline (waitFor may move
// it), and the structured result it fills for TOOL_COMPLETED.
struct ActionCall {
  const Step& step;
  std::size_t index;
  std::chrono::steady_clock::time_point deadline;
  boost::json::object& result;
};

struct Action {
  std::string name;
  std::string description;
  boost::json::object schema;                     // JSON Schema of the arguments object
  std::string (*command)(const Step&);            // "navigate https://...", for tool.started
  boost::asio::awaitable<std::string> (Attempt::*run)(ActionCall&);  // nullptr: finish, which ends the loop
};

// navigate, click, type, press, scroll, read, screenshot, back, waitFor, download, finish.
const std::vector<Action>& actions();
const Action* find_action(std::string_view name);

// The timeline's one line for a step ("click ref e3").
std::string command_of(const Step& step);

}  // namespace agentry::browser
