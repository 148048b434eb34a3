#include "stream.hpp"

#include <cctype>

#include <boost/json.hpp>

#include "agentry/plugin/events.h"
#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::cursor {

namespace json = boost::json;
using plugin_common::array_field;
using plugin_common::int_field;
using plugin_common::object_field;
using plugin_common::text_field;
using plugin_common::runtime::notice;

namespace {

constexpr std::size_t kOutputBytes = 64 * 1024;  // a tool's output in TOOL_COMPLETED

// The tool inside "tool_call": the key ending in "ToolCall" (siblings such as
// hookAdditionalContexts are not tools), or "function" for the generic form.
std::pair<std::string, const json::object*> tool_of(const json::object* tool_call) {
  if (tool_call == nullptr) return {"", nullptr};
  for (const auto& field : *tool_call) {
    const std::string_view key = field.key();
    if ((key.size() > 8 && key.substr(key.size() - 8) == "ToolCall") || key == "function")
      return {std::string(key), field.value().if_object()};
  }
  return {"", nullptr};
}

// shellToolCall -> command, editToolCall -> file_change, grepToolCall -> search, ...
std::string tool_name(std::string_view key, const json::object* tool) {
  if (key == "shellToolCall") return "command";
  if (key == "editToolCall" || key == "writeToolCall" || key == "deleteToolCall") return "file_change";
  if (key == "readToolCall") return "read";
  if (key == "grepToolCall" || key == "globToolCall" || key == "lsToolCall" || key == "semSearchToolCall") return "search";
  if (key == "updateTodosToolCall" || key == "readTodosToolCall") return "todo";
  if (key == "mcpToolCall") return "mcp";
  if (key == "function") {
    std::string name = text_field(tool, "name");
    return name.empty() ? std::string("function") : name;
  }
  std::string name(key.substr(0, key.size() - 8));  // webFetchToolCall -> webFetch
  return name.empty() ? std::string("tool") : name;
}

std::string bounded(std::string text) {
  if (text.size() > kOutputBytes) {
    text.resize(kOutputBytes);
    while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80) text.pop_back();
    if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xC0) text.pop_back();
    text += "\n[output truncated]";
  }
  return text;
}

// TODO_STATUS_IN_PROGRESS / in_progress -> in_progress.
std::string todo_status(std::string status) {
  for (char& c : status) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (status.rfind("todo_status_", 0) == 0) status.erase(0, 12);
  if (status == "in_progress" || status == "completed") return status;
  return "pending";  // pending, cancelled and whatever comes
}

}  // namespace

std::vector<Event> TurnStream::line(std::string_view text) {
  std::vector<Event> out;
  boost::system::error_code ec;
  const json::value parsed = json::parse(text, ec);
  if (ec || !parsed.is_object()) {
    if (!text.empty()) out.push_back(notice("warning", "cursor-agent printed a line that is not JSON: " +
                                                           std::string(text.substr(0, 300))));
    return out;
  }
  const json::object& o = parsed.get_object();
  const std::string type = text_field(&o, "type");
  const std::string subtype = text_field(&o, "subtype");
  if (type == "system" && subtype == "init") {
    chat_id_ = text_field(&o, "session_id");
    if (!chat_id_.empty()) out.push_back(Event{AGENTRY_EVENT_CHECKPOINT, 0, json::object{{"resumeToken", chat_id_}}});
  } else if (type == "thinking") {
    if (subtype == "delta") {
      const std::string piece = text_field(&o, "text");
      if (!piece.empty()) {
        thinking_ += piece;
        out.push_back(Event{AGENTRY_EVENT_REASONING_DELTA, AGENTRY_EVENT_FLAG_EPHEMERAL, json::object{{"text", piece}}});
      }
    } else if (subtype == "completed") {
      close_thinking(out);
    }
  } else if (type == "assistant") {
    std::string piece;
    if (const json::array* content = array_field(object_field(&o, "message"), "content"))
      for (const json::value& block : *content)
        if (text_field(block.if_object(), "type") == "text") piece += text_field(block.if_object(), "text");
    // With --stream-partial-output only timestamped lines without model_call_id are deltas;
    // the others repeat the segment whole (before a tool call, and at the end).
    const bool delta = o.contains("timestamp_ms") && !o.contains("model_call_id");
    close_thinking(out);
    if (delta) {
      if (!piece.empty()) {
        if (message_.empty()) ++segments_;
        message_ += piece;
        out.push_back(Event{AGENTRY_EVENT_MESSAGE_DELTA, AGENTRY_EVENT_FLAG_EPHEMERAL,
                            json::object{{"text", piece}, {"itemId", "m" + std::to_string(segments_)}}});
      }
    } else {
      if (message_.empty() && !piece.empty()) {  // no deltas came (no partial output): the whole segment
        ++segments_;
        message_ = piece;
      }
      close_message(out);
    }
  } else if (type == "tool_call") {
    close_thinking(out);
    close_message(out);
    if (subtype == "started") tool_started(o, out);
    else if (subtype == "completed") tool_completed(o, out);
  } else if (type == "result") {
    close_thinking(out);
    close_message(out);
    const json::value* is_error = o.if_contains("is_error");
    result_error_ = (is_error != nullptr && is_error->is_bool() && is_error->get_bool()) || subtype != "success";
    result_text_ = text_field(&o, "result");
    has_result_ = true;
    if (!said_anything_ && !result_text_.empty() && !result_error_)
      out.push_back(Event{AGENTRY_EVENT_MESSAGE_COMPLETED, 0,
                          json::object{{"text", result_text_}, {"itemId", "result"}, {"role", "assistant"}}});
    if (const json::object* usage = object_field(&o, "usage")) {
      json::object tokens;
      if (auto v = int_field(usage, "inputTokens")) tokens["inputTokens"] = *v;
      if (auto v = int_field(usage, "outputTokens")) tokens["outputTokens"] = *v;
      if (auto v = int_field(usage, "cacheReadTokens")) tokens["cachedInputTokens"] = *v;
      if (!tokens.empty()) out.push_back(Event{AGENTRY_EVENT_USAGE, 0, std::move(tokens)});
    }
  } else if (type == "connection" || type == "retry") {
    out.push_back(notice("info", "cursor-agent: " + type + " " + subtype));
  }
  // user (the prompt echoed) and unknown types say nothing the run needs.
  return out;
}

void TurnStream::close_message(std::vector<Event>& out) {
  if (message_.empty()) return;
  said_anything_ = true;
  out.push_back(Event{AGENTRY_EVENT_MESSAGE_COMPLETED, 0,
                      json::object{{"text", message_}, {"itemId", "m" + std::to_string(segments_)}, {"role", "assistant"}}});
  message_.clear();
}

void TurnStream::close_thinking(std::vector<Event>& out) {
  if (thinking_.empty()) return;
  out.push_back(Event{AGENTRY_EVENT_REASONING, 0, json::object{{"text", thinking_}}});
  thinking_.clear();
}

void TurnStream::tool_started(const json::object& line, std::vector<Event>& out) {
  const std::string id = text_field(&line, "call_id");
  const auto [key, tool] = tool_of(object_field(&line, "tool_call"));
  if (id.empty() || key.empty() || open_tools_.count(id)) return;
  const std::string name = tool_name(key, tool);
  open_tools_[id] = name;
  const json::object* args = object_field(tool, "args");
  json::object started{{"toolCallId", id}, {"tool", name}};
  if (std::string command = text_field(args, "command"); !command.empty()) started["command"] = command;
  if (std::string path = text_field(args, "path"); !path.empty()) started["path"] = path;
  if (args != nullptr) started["input"] = *args;
  out.push_back(Event{AGENTRY_EVENT_TOOL_STARTED, 0, std::move(started)});
  if (key == "updateTodosToolCall") {
    json::array steps;
    if (const json::array* todos = array_field(args, "todos"))
      for (const json::value& todo : *todos)
        steps.push_back(json::object{{"step", text_field(todo.if_object(), "content")},
                                     {"status", todo_status(text_field(todo.if_object(), "status"))}});
    out.push_back(Event{AGENTRY_EVENT_PLAN, 0, json::object{{"steps", std::move(steps)}}});
  }
}

void TurnStream::tool_completed(const json::object& line, std::vector<Event>& out) {
  const std::string id = text_field(&line, "call_id");
  const auto [key, tool] = tool_of(object_field(&line, "tool_call"));
  if (id.empty() || key.empty()) return;
  if (!open_tools_.count(id)) tool_started(line, out);  // a completion without its start: start it now
  const std::string name = open_tools_[id];
  open_tools_.erase(id);
  const json::object* result = object_field(tool, "result");
  json::object completed{{"toolCallId", id}, {"tool", name}};
  std::string status = "completed", output;
  std::optional<int64_t> exit_code;
  if (const json::object* success = object_field(result, "success")) {
    exit_code = int_field(success, "exitCode");
    if (exit_code && *exit_code != 0) status = "failed";
    output = text_field(success, "interleavedOutput");
    if (output.empty()) output = text_field(success, "stdout") + text_field(success, "stderr");
    if (output.empty()) output = text_field(success, "message");
    if (output.empty()) output = text_field(success, "content");
    if (key == "editToolCall" || key == "writeToolCall" || key == "deleteToolCall") {
      const std::string path = text_field(success, "path");
      const char* kind = key == "deleteToolCall" ? "delete" : success->contains("beforeFullFileContent") ? "update" : "add";
      if (!path.empty()) completed["changes"] = json::array{json::object{{"path", path}, {"kind", kind}}};
    }
  } else if (const json::object* failure = object_field(result, "failure")) {
    status = "failed";
    exit_code = int_field(failure, "exitCode");
    output = text_field(failure, "stdout") + text_field(failure, "stderr");
  } else {
    // rejected (a command print mode may not run), permissionDenied, writePermissionDenied, error
    status = "failed";
    for (const char* denied : {"rejected", "permissionDenied", "writePermissionDenied"})
      if (const json::object* d = object_field(result, denied)) {
        status = "declined";
        output = text_field(d, "reason");
        if (output.empty()) output = text_field(d, "error");
        if (output.empty()) output = std::string("cursor-agent refused it (") + denied + ")";
      }
    if (const json::object* e = object_field(result, "error")) output = text_field(e, "error") + text_field(e, "message");
  }
  completed["status"] = status;
  if (!output.empty()) completed["output"] = bounded(std::move(output));
  if (exit_code) completed["exitCode"] = *exit_code;
  out.push_back(Event{AGENTRY_EVENT_TOOL_COMPLETED, 0, std::move(completed)});
}

std::vector<Event> TurnStream::end() {
  std::vector<Event> out;
  close_thinking(out);
  close_message(out);
  for (const auto& [id, name] : open_tools_)
    out.push_back(Event{AGENTRY_EVENT_TOOL_COMPLETED, 0,
                        json::object{{"toolCallId", id}, {"tool", name}, {"status", "failed"},
                                     {"output", "cursor-agent ended before the tool call did"}}});
  open_tools_.clear();
  return out;
}

}  // namespace agentry::cursor
