#include "agentry/plugin_common/side_question.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::plugin_common {
namespace json = boost::json;

namespace {

std::string prompt_of(const json::object& request) {
  const json::object* state = object_field(&request, "state");
  std::string out =
      "This is a side question about the work in this session, asked by the person who started it. Answer it "
      "briefly from what you know. Do not run commands or change files: this conversation is discarded.\n\n"
      "The run's status: " + text_field(state, "status");
  if (std::string reason = text_field(state, "statusReason"); !reason.empty()) out += " (" + reason + ")";
  out += "\n";
  if (const json::array* tasks = array_field(state, "tasks"); tasks && !tasks->empty()) {
    out += "Its tasks:\n";
    for (const auto& t : *tasks)
      out += "- [" + text_field(t.if_object(), "status") + "] " + text_field(t.if_object(), "title") + "\n";
  }
  out += "\nThe question:\n" + text_field(&request, "question") + "\n";
  return out;
}

}  // namespace

std::optional<plugin::StartParams> side_question_params(const std::string& request_json, std::string& why) {
  boost::system::error_code ec;
  const json::value parsed = json::parse(request_json, ec);
  const json::object* request = ec ? nullptr : parsed.if_object();
  const json::object* config = object_field(request, "config");
  plugin::StartParams p;
  p.workspace_path = text_field(request, "workspacePath");
  if (!config || p.workspace_path.empty()) {
    why = request ? "the request has no config or workspacePath" : "the request is not a JSON object";
    return std::nullopt;
  }
  p.run_id = text_field(request, "runId");
  p.session_id = p.run_id + "/ask";
  p.config_json = json::serialize(*config);
  p.input_json = json::serialize(json::object{{"prompt", prompt_of(*request)}});
  if (std::string token = text_field(request, "resumeToken"); !token.empty()) p.resume_token = token;
  return p;
}

}  // namespace agentry::plugin_common
