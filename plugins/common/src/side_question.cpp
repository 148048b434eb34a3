#include "agentry/plugin_common/side_question.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace agentry::plugin_common {
namespace json = boost::json;

namespace {

std::string string_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace

std::string side_question_prompt(const std::string& request_json) {
  boost::system::error_code ec;
  json::value parsed = json::parse(request_json, ec);
  const json::object empty;
  const json::object& request = !ec && parsed.is_object() ? parsed.get_object() : empty;
  const json::value* state_value = request.if_contains("state");
  const json::object& state = state_value && state_value->is_object() ? state_value->get_object() : empty;
  std::string out =
      "This is a side question about the work in this session, asked by the person who started it. Answer it "
      "briefly from what you know. Do not run commands or change files: this conversation is discarded.\n\n"
      "The run's status: " + string_at(state, "status");
  if (std::string reason = string_at(state, "statusReason"); !reason.empty()) out += " (" + reason + ")";
  out += "\n";
  if (const json::value* tasks = state.if_contains("tasks"); tasks && tasks->is_array() && !tasks->get_array().empty()) {
    out += "Its tasks:\n";
    for (const auto& t : tasks->get_array())
      if (t.is_object()) out += "- [" + string_at(t.get_object(), "status") + "] " + string_at(t.get_object(), "title") + "\n";
  }
  out += "\nThe question:\n" + string_at(request, "question") + "\n";
  return out;
}

}  // namespace agentry::plugin_common
