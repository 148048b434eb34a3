#include "stream.hpp"

#include <boost/json.hpp>

#include "agentry/plugin/events.h"
#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::pi {

namespace json = boost::json;
using plugin_common::array_field;
using plugin_common::int_field;
using plugin_common::object_field;
using plugin_common::text_field;

namespace {

constexpr std::size_t kOutputBytes = 64 * 1024;

// The text blocks of a tool result ({content: [{type: text, text}]}).
std::string result_text(const json::object* result) {
  std::string out;
  if (const json::array* content = array_field(result, "content"))
    for (const json::value& block : *content)
      if (text_field(block.if_object(), "type") == "text") out += text_field(block.if_object(), "text");
  if (out.size() > kOutputBytes) {
    out.resize(kOutputBytes);
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
    if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
    out += "\n[output truncated]";
  }
  return out;
}

}  // namespace

std::string tool_name(std::string_view pi_tool) {
  if (pi_tool == "bash") return "command";
  if (pi_tool == "edit" || pi_tool == "write") return "file_change";
  return pi_tool.empty() ? std::string("tool") : std::string(pi_tool);
}

std::string PiStream::item(const char* kind, int64_t index) const {
  return std::string(kind) + std::to_string(messages_) + "." + std::to_string(index);
}

std::vector<Event> PiStream::event(const json::object& line) {
  std::vector<Event> out;
  const std::string type = text_field(&line, "type");
  if (type == "message_start") {
    if (text_field(object_field(&line, "message"), "role") == "assistant") ++messages_;
  } else if (type == "message_update") {
    const json::object* e = object_field(&line, "assistantMessageEvent");
    const std::string kind = text_field(e, "type");
    const int64_t index = int_field(e, "contentIndex").value_or(0);
    if (kind == "text_delta" || kind == "thinking_delta") {
      const bool thinking = kind == "thinking_delta";
      const std::string delta = text_field(e, "delta");
      if (!delta.empty()) {
        (thinking ? thinking_ : text_)[index] += delta;
        out.push_back(Event{static_cast<uint16_t>(thinking ? AGENTRY_EVENT_REASONING_DELTA : AGENTRY_EVENT_MESSAGE_DELTA),
                            AGENTRY_EVENT_FLAG_EPHEMERAL,
                            json::object{{"text", delta}, {"itemId", item(thinking ? "r" : "m", index)}}});
      }
    } else if (kind == "text_end" || kind == "thinking_end") {
      const bool thinking = kind == "thinking_end";
      auto& open = thinking ? thinking_ : text_;
      std::string whole = text_field(e, "content");
      if (whole.empty()) whole = open[index];
      open.erase(index);
      if (!whole.empty()) {
        json::object payload{{"text", whole}, {"itemId", item(thinking ? "r" : "m", index)}};
        if (!thinking) payload["role"] = "assistant";
        out.push_back(Event{static_cast<uint16_t>(thinking ? AGENTRY_EVENT_REASONING : AGENTRY_EVENT_MESSAGE_COMPLETED), 0,
                            std::move(payload)});
      }
    }
  } else if (type == "message_end") {
    const json::object* message = object_field(&line, "message");
    if (text_field(message, "role") == "assistant") {
      stop_reason_ = text_field(message, "stopReason");
      error_message_ = text_field(message, "errorMessage");
      if (const json::object* usage = object_field(message, "usage")) {
        json::object tokens;
        if (auto v = int_field(usage, "input")) tokens["inputTokens"] = *v;
        if (auto v = int_field(usage, "output")) tokens["outputTokens"] = *v;
        if (auto v = int_field(usage, "cacheRead")) tokens["cachedInputTokens"] = *v;
        if (!tokens.empty()) out.push_back(Event{AGENTRY_EVENT_USAGE, 0, std::move(tokens)});
      }
    }
  } else if (type == "tool_execution_start") {
    const std::string id = text_field(&line, "toolCallId");
    const std::string name = tool_name(text_field(&line, "toolName"));
    tools_[id] = name;
    json::object started{{"toolCallId", id}, {"tool", name}};
    const json::object* args = object_field(&line, "args");
    if (std::string command = text_field(args, "command"); !command.empty()) started["command"] = command;
    if (std::string path = text_field(args, "path"); !path.empty()) started["path"] = path;
    if (args != nullptr) started["input"] = *args;
    out.push_back(Event{AGENTRY_EVENT_TOOL_STARTED, 0, std::move(started)});
  } else if (type == "tool_execution_end") {
    const std::string id = text_field(&line, "toolCallId");
    const std::string name = tools_.count(id) ? tools_[id] : tool_name(text_field(&line, "toolName"));
    tools_.erase(id);
    const json::value* is_error = line.if_contains("isError");
    json::object completed{{"toolCallId", id},
                           {"tool", name},
                           {"status", is_error && is_error->is_bool() && is_error->get_bool() ? "failed" : "completed"}};
    if (std::string output = result_text(object_field(&line, "result")); !output.empty()) completed["output"] = output;
    out.push_back(Event{AGENTRY_EVENT_TOOL_COMPLETED, 0, std::move(completed)});
  } else if (type == "auto_retry_start" || type == "compaction_start") {
    std::string what = type == "auto_retry_start" ? "pi retries the model call: " + text_field(&line, "errorMessage")
                                                  : "pi compacts the conversation (" + text_field(&line, "reason") + ")";
    out.push_back(plugin_common::runtime::notice("info", what));
  } else if (type == "extension_error") {
    out.push_back(plugin_common::runtime::notice("warning", "a pi extension failed: " + text_field(&line, "error")));
  }
  return out;
}

std::vector<Event> PiStream::end(const char* open_tools_status) {
  std::vector<Event> out;
  for (auto& [index, text] : text_)
    if (!text.empty())
      out.push_back(Event{AGENTRY_EVENT_MESSAGE_COMPLETED, 0,
                          json::object{{"text", text}, {"itemId", item("m", index)}, {"role", "assistant"}}});
  for (auto& [index, text] : thinking_)
    if (!text.empty())
      out.push_back(Event{AGENTRY_EVENT_REASONING, 0, json::object{{"text", text}, {"itemId", item("r", index)}}});
  for (const auto& [id, name] : tools_)
    out.push_back(Event{AGENTRY_EVENT_TOOL_COMPLETED, 0,
                        json::object{{"toolCallId", id}, {"tool", name}, {"status", open_tools_status},
                                     {"output", "the prompt ended before the tool call did"}}});
  text_.clear();
  thinking_.clear();
  tools_.clear();
  return out;
}

}  // namespace agentry::pi
