#include "browser/browser_tools.hpp"

#include "browser/actions.hpp"

#include <boost/json/value.hpp>

namespace agentry::browser {
namespace json = boost::json;

namespace {

// One tool per action of the script language (actions.cpp), same names and arguments.
std::vector<ToolSpec> make_tools() {
  std::vector<ToolSpec> tools;
  for (const Action& a : actions()) tools.push_back({a.name, a.description, a.schema});
  return tools;
}

}  // namespace

const std::vector<ToolSpec>& browser_tools() {
  static const std::vector<ToolSpec> tools = make_tools();
  return tools;
}

std::optional<Step> step_of(const ToolCall& call, std::string& error) {
  if (!call.arguments_error.empty()) {
    error = call.arguments_error;
    return std::nullopt;
  }
  if (find_action(call.name) == nullptr) {
    error = "there is no tool \"" + call.name + "\"";
    return std::nullopt;
  }
  json::object step = call.arguments;
  step["action"] = call.name;  // the tool's name, whatever the arguments say
  auto parsed = step_from_json(step, error);
  if (parsed && call.name == "finish" && !parsed->args.contains("summary")) {
    error = "\"finish\" needs \"summary\" (a string)";
    return std::nullopt;
  }
  return parsed;
}

const std::string& model_mode_system_prompt() {
  static const std::string text =
      "You control a headless Chromium browser through tools to carry out the user's task. Call one tool at a "
      "time; each result comes back to you. Use read to see the page: its text and its links, buttons and inputs, "
      "each with a ref (e1, e2...) that click, type and download accept instead of a CSS selector. Refs last until "
      "the page changes; read again after a navigation. When the task is done, or cannot be done, call finish with "
      "a short summary for the user: what you found or did, or why not.";
  return text;
}

const std::string& ask_system_prompt() {
  static const std::string text =
      "You answer a user's question about a browser task that an agent is running or has run. You cannot act: no "
      "tools, no browsing. Answer from the state given (the task list, the recent timeline of the agent's messages "
      "and actions, its final message and, when present, the latest picture of the page). Be brief and say when "
      "the state does not tell.";
  return text;
}

}  // namespace agentry::browser
