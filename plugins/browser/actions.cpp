#include "browser/actions.hpp"

#include <boost/json/serialize.hpp>

#include "agentry/plugin_common/json_fields.hpp"
#include "browser/attempt.hpp"

namespace agentry::browser {
namespace json = boost::json;
using plugin_common::text_field;

namespace {

json::object prop(const char* type, const char* description) { return {{"type", type}, {"description", description}}; }

json::object schema(json::object properties, json::array required = {}) {
  json::object s{{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) s["required"] = std::move(required);
  return s;
}

constexpr const char* kSelector = "a CSS selector of the element (give this or ref)";
constexpr const char* kRef = "the element's ref from the last read, such as \"e3\" (give this or selector)";

std::string target_text(const Step& s) {
  const std::string ref = text_field(s.args, "ref");
  return ref.empty() ? text_field(s.args, "selector") : "ref " + ref;
}

std::string just_the_name(const Step& s) { return s.action; }

std::vector<Action> make_actions() {
  return {
      {"navigate", "Load a URL in the page and wait until it has loaded.",
       schema({{"url", prop("string", "the absolute URL to load")}}, {"url"}),
       [](const Step& s) { return "navigate " + text_field(s.args, "url"); }, &Attempt::navigate},
      {"click", "Click an element (scrolled into view first) and wait for a navigation it starts.",
       schema({{"selector", prop("string", kSelector)}, {"ref", prop("string", kRef)}}),
       [](const Step& s) { return "click " + target_text(s); }, &Attempt::click},
      {"type", "Focus a text field, clear it and type the text into it.",
       schema({{"selector", prop("string", kSelector)}, {"ref", prop("string", kRef)},
               {"text", prop("string", "the text to type")}},
              {"text"}),
       [](const Step& s) { return "type " + target_text(s) + " " + json::serialize(s.args.at("text")); },
       &Attempt::type_text},
      {"press", "Press one key: a single character or Enter, Tab, Escape, Backspace, Delete, ArrowUp, ArrowDown, "
                "ArrowLeft, ArrowRight, PageUp, PageDown, Home, End, Space.",
       schema({{"key", prop("string", "the key")}}, {"key"}),
       [](const Step& s) { return "press " + text_field(s.args, "key"); }, &Attempt::press},
      {"scroll", "Scroll the page vertically.", schema({{"y", prop("number", "pixels; negative scrolls up")}}, {"y"}),
       [](const Step& s) { return "scroll " + json::serialize(s.args.at("y")); }, &Attempt::scroll},
      {"read", "Read the page: its title, URL, visible text and the links, buttons and inputs, each with a ref.",
       schema({}), just_the_name, &Attempt::read_page},
      {"screenshot", "Save a PNG of the viewport into the run's browser-artifacts directory.",
       schema({{"name", prop("string", "a file name for it (optional)")}}),
       [](const Step& s) { return "screenshot" + (s.args.contains("name") ? " " + text_field(s.args, "name") : std::string()); },
       &Attempt::screenshot},
      {"back", "Go back one page in the history.", schema({}), just_the_name, &Attempt::back},
      {"waitFor", "Wait until a text appears in the page or a selector matches a visible element.",
       schema({{"text", prop("string", "the text to wait for (give this or selector)")},
               {"selector", prop("string", "the CSS selector to wait for (give this or text)")},
               {"timeoutMs", prop("integer", "how long to wait, in milliseconds (optional)")}}),
       [](const Step& s) {
         return "waitFor " +
                (s.args.contains("text") ? "text " + json::serialize(s.args.at("text")) : text_field(s.args, "selector"));
       },
       &Attempt::wait_for},
      {"download", "Click an element that starts a download and wait until the file is saved.",
       schema({{"selector", prop("string", kSelector)}, {"ref", prop("string", kRef)}}),
       [](const Step& s) { return "download " + target_text(s); }, &Attempt::download},
      {"finish", "End the task. Call this once the task is done, or cannot be done, with a summary for the user.",
       schema({{"summary", prop("string", "what you found or did, or why the task cannot be done")}}, {"summary"}),
       just_the_name, nullptr},
  };
}

}  // namespace

const std::vector<Action>& actions() {
  static const std::vector<Action> table = make_actions();
  return table;
}

const Action* find_action(std::string_view name) {
  for (const Action& a : actions())
    if (a.name == name) return &a;
  return nullptr;
}

std::string command_of(const Step& step) {
  const Action* action = find_action(step.action);
  return action != nullptr ? action->command(step) : step.action;
}

}  // namespace agentry::browser
