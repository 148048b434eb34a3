#include "browser/browser_tools.hpp"

#include <boost/json/value.hpp>

namespace agentry::browser {
namespace json = boost::json;

namespace {

json::object prop(const char* type, const char* description) { return {{"type", type}, {"description", description}}; }

json::object schema(json::object properties, json::array required = {}) {
  json::object s{{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) s["required"] = std::move(required);
  return s;
}

constexpr const char* kSelector = "a CSS selector of the element (give this or ref)";
constexpr const char* kRef = "the element's ref from the last read, such as \"e3\" (give this or selector)";

std::vector<ToolSpec> make_tools() {
  return {
      {"navigate", "Load a URL in the page and wait until it has loaded.",
       schema({{"url", prop("string", "the absolute URL to load")}}, {"url"})},
      {"click", "Click an element (scrolled into view first) and wait for a navigation it starts.",
       schema({{"selector", prop("string", kSelector)}, {"ref", prop("string", kRef)}})},
      {"type", "Focus a text field, clear it and type the text into it.",
       schema({{"selector", prop("string", kSelector)}, {"ref", prop("string", kRef)},
               {"text", prop("string", "the text to type")}},
              {"text"})},
      {"press", "Press one key: a single character or Enter, Tab, Escape, Backspace, Delete, ArrowUp, ArrowDown, "
                "ArrowLeft, ArrowRight, PageUp, PageDown, Home, End, Space.",
       schema({{"key", prop("string", "the key")}}, {"key"})},
      {"scroll", "Scroll the page vertically.", schema({{"y", prop("number", "pixels; negative scrolls up")}}, {"y"})},
      {"read", "Read the page: its title, URL, visible text and the links, buttons and inputs, each with a ref.",
       schema({})},
      {"screenshot", "Save a PNG of the viewport into the run's browser-artifacts directory.",
       schema({{"name", prop("string", "a file name for it (optional)")}})},
      {"back", "Go back one page in the history.", schema({})},
      {"waitFor", "Wait until a text appears in the page or a selector matches a visible element.",
       schema({{"text", prop("string", "the text to wait for (give this or selector)")},
               {"selector", prop("string", "the CSS selector to wait for (give this or text)")},
               {"timeoutMs", prop("integer", "how long to wait, in milliseconds (optional)")}})},
      {"download", "Click an element that starts a download and wait until the file is saved.",
       schema({{"selector", prop("string", kSelector)}, {"ref", prop("string", kRef)}})},
      {"finish", "End the task. Call this once the task is done, or cannot be done, with a summary for the user.",
       schema({{"summary", prop("string", "what you found or did, or why the task cannot be done")}}, {"summary"})},
  };
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
  bool known = false;
  for (const ToolSpec& t : browser_tools()) known = known || t.name == call.name;
  if (!known) {
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
