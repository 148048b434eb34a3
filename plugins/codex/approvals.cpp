#include "approvals.hpp"

#include <boost/json.hpp>

#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::codex {

namespace json = boost::json;
using plugin_common::text_field;

namespace {

// The legacy requests carry the command as an argv array.
std::string command_text(const json::value* command) {
  if (command == nullptr) return {};
  if (command->is_string()) return std::string(command->get_string());
  std::string out;
  if (command->is_array())
    for (const json::value& part : command->get_array())
      if (part.is_string()) out += (out.empty() ? "" : " ") + std::string(part.get_string());
  return out;
}

void copy_if(const json::object& from, std::string_view key, json::object& to) {
  if (const json::value* v = from.if_contains(key); v != nullptr && !v->is_null()) to[key] = *v;
}

}  // namespace

std::optional<ApprovalAsk> approval_ask(std::string_view method, const json::object& params, const json::object* item) {
  ApprovalAsk ask;
  if (method == "item/commandExecution/requestApproval" || method == "execCommandApproval") {
    ask.kind = "command";
    ask.legacy = method == "execCommandApproval";
    std::string command = command_text(params.if_contains("command"));
    if (command.empty() && item != nullptr) command = command_text(item->if_contains("command"));
    ask.summary = "run command: " + (command.empty() ? std::string("(not shown)") : command);
    ask.details["command"] = command;
    for (std::string_view key : {"cwd", "reason", "itemId", "callId", "commandActions", "proposedExecpolicyAmendment"})
      copy_if(params, key, ask.details);
    return ask;
  }
  if (method == "item/fileChange/requestApproval" || method == "applyPatchApproval") {
    ask.kind = "file_change";
    ask.legacy = method == "applyPatchApproval";
    for (std::string_view key : {"reason", "grantRoot", "itemId", "callId", "fileChanges"})
      copy_if(params, key, ask.details);
    std::string paths;
    if (item != nullptr)
      if (const json::value* changes = item->if_contains("changes"); changes != nullptr && changes->is_array()) {
        ask.details["changes"] = *changes;
        for (const json::value& change : changes->get_array())
          if (change.is_object()) paths += (paths.empty() ? "" : ", ") + text_field(change.get_object(), "path");
      }
    if (const json::value* files = params.if_contains("fileChanges"); files != nullptr && files->is_object())
      for (const auto& field : files->get_object()) paths += (paths.empty() ? "" : ", ") + std::string(field.key());
    const std::string reason = text_field(params, "reason");
    ask.summary = "apply file changes" + (paths.empty() ? std::string() : ": " + paths) +
                  (reason.empty() ? std::string() : " (" + reason + ")");
    return ask;
  }
  return std::nullopt;
}

json::object approval_result(bool legacy, Decision decision) {
  const char* spelled = nullptr;
  switch (decision) {
    case Decision::accept:
      spelled = legacy ? "approved" : "accept";
      break;
    case Decision::decline:
      spelled = legacy ? "denied" : "decline";
      break;
    case Decision::cancel:
      spelled = legacy ? "abort" : "cancel";
      break;
  }
  return json::object{{"decision", spelled}};
}

}  // namespace agentry::codex
