#include "jsonl_protocol.hpp"

#include <array>

#include <boost/json.hpp>

#include "agentry/plugin/backend.h"
#include "agentry/plugin/events.h"
#include "agentry/plugin_common/line_splitter.hpp"

namespace agentry::subprocess {

namespace json = boost::json;

namespace {

struct TypeInfo {
  std::string_view name;
  uint16_t type;
  bool ephemeral_by_default;
  std::array<std::string_view, 3> required_strings;  // unused slots stay empty
};

// The protocol's "type" values and the AGENTRY_EVENT_* each one becomes.
const std::array<TypeInfo, 9>& type_table() {
  static const std::array<TypeInfo, 9> table{{
      {"message.delta", AGENTRY_EVENT_MESSAGE_DELTA, true, {"text"}},
      {"message.completed", AGENTRY_EVENT_MESSAGE_COMPLETED, false, {"text"}},
      {"reasoning", AGENTRY_EVENT_REASONING, false, {"text"}},
      {"tool.started", AGENTRY_EVENT_TOOL_STARTED, false, {"toolCallId", "tool"}},
      {"tool.completed", AGENTRY_EVENT_TOOL_COMPLETED, false, {"toolCallId", "tool", "status"}},
      {"approval.request", AGENTRY_EVENT_APPROVAL_REQUEST, false, {"approvalId", "kind", "summary"}},
      {"usage", AGENTRY_EVENT_USAGE, false, {}},
      {"notice", AGENTRY_EVENT_NOTICE, false, {"message"}},
      {"checkpoint", AGENTRY_EVENT_CHECKPOINT, false, {"resumeToken"}},
  }};
  return table;
}

// The first 200 bytes of a line, for messages about it.
std::string excerpt(std::string_view line) {
  constexpr std::size_t kMax = 200;
  if (line.size() <= kMax) return std::string(line);
  return std::string(line.substr(0, plugin_common::utf8_prefix_length(line, kMax))) + "...";
}

AgentLine warning(std::string message) {
  return AgentLine{AgentLine::Kind::event, notice("warning", message, "stdout"), {}};
}

AgentLine finished_line(const json::object& object, std::string_view line) {
  const json::value* outcome = object.if_contains("outcome");
  const json::string* text = outcome != nullptr ? outcome->if_string() : nullptr;
  if (text == nullptr || (*text != "success" && *text != "error"))
    return warning("invalid 'finished' line from agent (outcome must be \"success\" or \"error\"): " + excerpt(line));
  AgentLine out;
  out.kind = AgentLine::Kind::finished;
  out.declared.error = *text == "error";
  if (const json::value* message = object.if_contains("message"); message != nullptr && message->is_string())
    out.declared.message = std::string(message->get_string());
  return out;
}

}  // namespace

AgentLine map_agent_line(std::string_view line) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return AgentLine{};
  boost::system::error_code ec;
  json::value parsed = json::parse(line, ec);
  if (ec || !parsed.is_object()) return warning("unparseable line from agent: " + excerpt(line));
  json::object& object = parsed.get_object();
  const json::value* type_value = object.if_contains("type");
  if (type_value == nullptr || !type_value->is_string())
    return warning("unparseable line from agent (no \"type\" string): " + excerpt(line));
  const std::string type_name(type_value->get_string());
  if (type_name == "finished") return finished_line(object, line);

  const TypeInfo* info = nullptr;
  for (const TypeInfo& candidate : type_table())
    if (candidate.name == type_name) info = &candidate;
  if (info == nullptr) return warning("unknown event type '" + excerpt(type_name) + "' from agent");

  for (std::string_view field : info->required_strings) {
    if (field.empty()) continue;
    const json::value* value = object.if_contains(field);
    if (value == nullptr || !value->is_string())
      return warning("invalid '" + type_name + "' line from agent (missing string field '" + std::string(field) +
                     "'): " + excerpt(line));
  }
  bool ephemeral = info->ephemeral_by_default;
  if (const json::value* flag = object.if_contains("ephemeral")) {
    if (!flag->is_bool())
      return warning("invalid '" + type_name + "' line from agent (\"ephemeral\" must be true or false): " +
                     excerpt(line));
    ephemeral = flag->get_bool();
  }
  object.erase("type");
  object.erase("ephemeral");
  if (info->type == AGENTRY_EVENT_NOTICE && !object.contains("level")) object["level"] = "info";
  const uint32_t flags = ephemeral ? uint32_t{AGENTRY_EVENT_FLAG_EPHEMERAL} : uint32_t{0};
  return AgentLine{AgentLine::Kind::event, Event{info->type, flags, json::serialize(object)}, {}};
}

Event oversized_line_notice(std::size_t bytes) {
  return notice("warning",
                "line from agent too long (" + std::to_string(bytes) + " bytes, limit " +
                    std::to_string(kJsonlLineBytes) + "), dropped",
                "stdout");
}

std::string prompt_input_line(std::string_view prompt) {
  json::object line;
  line["type"] = "input";
  line["kind"] = "prompt";
  line["text"] = prompt;
  return json::serialize(line) + "\n";
}

std::optional<std::string> input_line(uint32_t kind, std::string_view input_id, std::string_view payload_json) {
  std::string_view kind_name;
  if (kind == AGENTRY_INPUT_MESSAGE) kind_name = "message";
  else if (kind == AGENTRY_INPUT_APPROVAL) kind_name = "approval";
  else return std::nullopt;
  boost::system::error_code ec;
  json::value payload = json::parse(payload_json.empty() ? std::string_view("{}") : payload_json, ec);
  if (ec || !payload.is_object()) return std::nullopt;
  json::object line;
  line["type"] = "input";
  line["kind"] = kind_name;
  line["inputId"] = input_id;
  for (const auto& field : payload.get_object())
    if (field.key() != "type" && field.key() != "kind" && field.key() != "inputId") line[field.key()] = field.value();
  return json::serialize(line) + "\n";
}

}  // namespace agentry::subprocess
