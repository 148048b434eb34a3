#include "normalizer.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "agentry/plugin/events.h"
#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::claude {

namespace json = boost::json;
using plugin_common::object_field;

namespace {

constexpr std::size_t kUnknownLineBytes = 2048;  // how much of an unknown line a NOTICE quotes
constexpr int kUnknownNoticesPerKind = 20;

std::string_view str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

int64_t integer(const json::object* o, std::string_view key) {
  if (o == nullptr) return 0;
  const json::value* v = o->if_contains(key);
  if (v == nullptr) return 0;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  if (v->is_double()) return static_cast<int64_t>(v->get_double());
  return 0;
}

// A tool_result's content: a string, or a list of blocks whose text parts are joined.
std::string content_text(const json::value* content) {
  if (content == nullptr) return {};
  if (content->is_string()) return std::string(content->get_string());
  std::string out;
  if (!content->is_array()) return out;
  for (const json::value& block : content->get_array()) {
    if (!block.is_object()) continue;
    const json::object& b = block.get_object();
    if (str(b, "type") == "text") {
      if (!out.empty()) out += "\n";
      out += str(b, "text");
    } else if (!str(b, "type").empty()) {
      if (!out.empty()) out += "\n";
      out += "[" + std::string(str(b, "type")) + "]";
    }
  }
  return out;
}

// True when Claude's tool_result_meta says the permission for `id` was refused.
bool declined(const json::object& line, std::string_view id) {
  const json::value* meta = line.if_contains("tool_result_meta");
  if (meta == nullptr || !meta->is_array()) return false;
  for (const json::value& entry : meta->get_array()) {
    if (!entry.is_object() || str(entry.get_object(), "id") != id) continue;
    const json::object* decision = object_field(entry.if_object(), "permission_decision");
    if (decision != nullptr && str(*decision, "decision") == "reject") return true;
  }
  return false;
}

std::string input_string(const json::value& input, std::string_view key) {
  return input.is_object() ? std::string(str(input.get_object(), key)) : std::string();
}

// A sub-agent's (Task/Agent tool) lines name the tool call that runs it: its events carry
// that id as parentToolCallId, so clients can nest them under the call.
struct Nesting {
  std::string parent;
  json::object operator()(json::object payload) const {
    if (!parent.empty()) payload["parentToolCallId"] = parent;
    return payload;
  }
};

// TodoWrite's list is Claude's plan: {"todos": [{"content", "status", "activeForm"}]}.
Event plan_of(const json::value& input) {
  json::array steps;
  const json::value* todos = input.is_object() ? input.get_object().if_contains("todos") : nullptr;
  if (todos != nullptr && todos->is_array())
    for (const json::value& todo : todos->get_array()) {
      if (!todo.is_object()) continue;
      steps.push_back(json::object{{"step", bounded_text(str(todo.get_object(), "content"), 4096)},
                                   {"status", str(todo.get_object(), "status")}});
    }
  return make_event(AGENTRY_EVENT_PLAN, {{"steps", std::move(steps)}});
}

}  // namespace

std::string tool_kind(std::string_view claude_tool) {
  if (claude_tool == "Bash") return "command";
  if (claude_tool == "Write" || claude_tool == "Edit" || claude_tool == "MultiEdit" || claude_tool == "NotebookEdit")
    return "file_change";
  return std::string(claude_tool);
}

std::string tool_summary(std::string_view claude_tool, const json::value& input) {
  if (claude_tool == "Bash") return input_string(input, "command");
  if (std::string path = input_string(input, "file_path"); !path.empty())
    return std::string(claude_tool) + " " + path;
  if (std::string path = input_string(input, "notebook_path"); !path.empty())
    return std::string(claude_tool) + " " + path;
  return std::string(claude_tool) + " " + bounded_text(json::serialize(input), 512);
}

Parsed Normalizer::on_line(std::string_view line) {
  Parsed out;
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return out;
  boost::system::error_code ec;
  json::value value = json::parse(line, ec);
  if (ec || !value.is_object()) {
    out.events.push_back(notice("warning", "claude printed a line that is not a JSON object: " +
                                               bounded_text(line, kUnknownLineBytes)));
    return out;
  }
  const json::object& o = value.get_object();
  const std::string_view type = str(o, "type");
  if (type == "system") on_system(o, out);
  else if (type == "stream_event") on_stream_event(o, out);
  else if (type == "assistant") on_assistant(o, out);
  else if (type == "user") on_user(o, out);
  else if (type == "result") on_result(o, out);
  else if (type == "control_request") on_control_request(o, out);
  else if (type == "control_response") on_control_response(o, out);
  else if (type == "control_cancel_request") out.cancelled_request = std::string(str(o, "request_id"));
  else if (type != "keep_alive") unknown(std::string(type.empty() ? "untyped" : type), line, out);  // keep_alive: liveness only
  return out;
}

void Normalizer::on_system(const json::object& o, Parsed& out) {
  const std::string_view subtype = str(o, "subtype");
  if (subtype == "init") {
    if (!str(o, "session_id").empty()) out.session_id = std::string(str(o, "session_id"));
  } else if (subtype == "status") {
    // "requesting" precedes every model call: progress chatter. Other states are news.
    const std::string_view status = str(o, "status");
    if (!status.empty() && status != "requesting") out.events.push_back(notice("info", "claude: " + std::string(status)));
  } else if (subtype == "thinking_tokens") {
    // a running estimate while the model thinks; the REASONING text follows
  } else if (subtype == "api_retry") {
    std::string message = "model API call failed";
    if (int64_t status = integer(&o, "error_status"); status != 0) message += " with HTTP " + std::to_string(status);
    if (!str(o, "error").empty()) message += " (" + std::string(str(o, "error")) + ")";
    message += "; claude retries (attempt " + std::to_string(integer(&o, "attempt")) + " of " +
               std::to_string(integer(&o, "max_retries")) + ") in " + std::to_string(integer(&o, "retry_delay_ms")) +
               " ms";
    out.events.push_back(notice("warning", message));
  } else if (subtype == "permission_denied") {
    out.events.push_back(notice("warning", "claude denied " + std::string(str(o, "tool_name")) + ": " +
                                               std::string(str(o, "message"))));
  } else if (subtype == "compact_boundary") {
    out.events.push_back(notice("info", "claude compacted the conversation"));
  } else {
    unknown("system/" + std::string(subtype), json::serialize(o), out);
  }
}

void Normalizer::on_stream_event(const json::object& o, Parsed& out) {
  const json::object* event = object_field(&o, "event");
  if (event == nullptr) return unknown("stream_event without event", json::serialize(o), out);
  const std::string_view type = str(*event, "type");
  const std::string message_id(str(o, "api_message_id"));
  if (type == "content_block_start") {
    open_block_[message_id] = integer(event, "index");
  } else if (type == "content_block_delta") {
    const json::object* delta = object_field(event, "delta");
    if (delta == nullptr) return;
    const std::string_view kind = str(*delta, "type");
    const bool thinking = kind == "thinking_delta";
    if (kind != "text_delta" && !thinking) return;  // tool input, signatures
    json::object payload{{"text", bounded_text(str(*delta, thinking ? "thinking" : "text"), kMessageBytes)},
                         {"itemId", message_id + "/" + std::to_string(integer(event, "index"))}};
    out.events.push_back(make_event(thinking ? AGENTRY_EVENT_REASONING_DELTA : AGENTRY_EVENT_MESSAGE_DELTA, payload,
                                    AGENTRY_EVENT_FLAG_EPHEMERAL));
  } else if (type == "message_start" || type == "message_delta" || type == "message_stop" ||
             type == "content_block_stop" || type == "ping") {
    // framing: the complete blocks arrive as `assistant` lines
  } else {
    unknown("stream_event/" + std::string(type), json::serialize(o), out);
  }
}

void Normalizer::on_assistant(const json::object& o, Parsed& out) {
  const json::object* message = object_field(&o, "message");
  const json::value* content = message != nullptr ? message->if_contains("content") : nullptr;
  if (content == nullptr || !content->is_array()) return unknown("assistant without content", json::serialize(o), out);
  const std::string message_id(str(*message, "id"));
  // Claude prints one line per finished block, before that block's content_block_stop.
  const auto index = open_block_.find(message_id);
  const std::string item_id =
      message_id + "/" + (index != open_block_.end() ? std::to_string(index->second) : std::string(str(o, "uuid")));
  const Nesting nest{std::string(str(o, "parent_tool_use_id"))};
  for (const json::value& block_value : content->get_array()) {
    if (!block_value.is_object()) continue;
    const json::object& block = block_value.get_object();
    const std::string_view type = str(block, "type");
    if (type == "text") {
      if (str(block, "text").empty()) continue;
      // A failed model call reaches the history as a synthetic assistant message; it is
      // Claude's report, not the model's words.
      if (const json::value* api_error = o.if_contains("is_api_error_message");
          api_error != nullptr && api_error->is_bool() && api_error->get_bool()) {
        out.events.push_back(notice("error", str(block, "text")));
        continue;
      }
      out.events.push_back(make_event(AGENTRY_EVENT_MESSAGE_COMPLETED,
                                      nest({{"text", bounded_text(str(block, "text"), kMessageBytes)},
                                            {"itemId", item_id},
                                            {"role", "assistant"}})));
    } else if (type == "thinking") {
      if (str(block, "thinking").empty()) continue;
      out.events.push_back(make_event(
          AGENTRY_EVENT_REASONING,
          nest({{"text", bounded_text(str(block, "thinking"), kMessageBytes)}, {"itemId", item_id}})));
    } else if (type == "redacted_thinking") {
      out.events.push_back(make_event(AGENTRY_EVENT_REASONING, {{"text", ""}, {"itemId", item_id}, {"redacted", true}}));
    } else if (type == "tool_use") {
      const std::string id(str(block, "id"));
      const std::string name(str(block, "name"));
      const json::value input = block.contains("input") ? block.at("input") : json::value(json::object());
      ToolCall call{tool_kind(name), name};
      json::object payload{{"toolCallId", id}, {"tool", call.tool}, {"name", name}};
      if (call.tool == "command") payload["command"] = input_string(input, "command");
      if (std::string path = input_string(input, "file_path"); !path.empty()) payload["path"] = path;
      std::string serialized = json::serialize(input);
      if (serialized.size() <= kToolOutputBytes) payload["input"] = input;
      else payload["inputTruncated"] = bounded_text(serialized, kToolOutputBytes);
      tool_calls_[id] = std::move(call);
      out.events.push_back(make_event(AGENTRY_EVENT_TOOL_STARTED, nest(std::move(payload))));
      if (name == "TodoWrite") out.events.push_back(plan_of(input));
    } else {
      unknown("assistant/" + std::string(type), json::serialize(block), out);
    }
  }
}

void Normalizer::on_user(const json::object& o, Parsed& out) {
  const json::object* message = object_field(&o, "message");
  const json::value* content = message != nullptr ? message->if_contains("content") : nullptr;
  if (content != nullptr && content->is_string()) {
    out.events.push_back(notice("info", "claude: " + std::string(content->get_string())));
    return;
  }
  if (content == nullptr || !content->is_array()) return unknown("user without content", json::serialize(o), out);
  const Nesting nest{std::string(str(o, "parent_tool_use_id"))};
  for (const json::value& block_value : content->get_array()) {
    if (!block_value.is_object()) continue;
    const json::object& block = block_value.get_object();
    const std::string_view type = str(block, "type");
    if (type == "text") {
      // Claude's own notes in the history, such as "[Request interrupted by user]".
      out.events.push_back(notice("info", "claude: " + std::string(str(block, "text"))));
      continue;
    }
    if (type != "tool_result") {
      unknown("user/" + std::string(type), json::serialize(block), out);
      continue;
    }
    const std::string id(str(block, "tool_use_id"));
    const auto call = tool_calls_.find(id);
    std::string output;
    bool interrupted = false;
    // tool_use_result carries Bash's separate stdout/stderr; for other tools (and denials,
    // where it is a string) the tool_result content is what the model saw.
    const json::object* result = object_field(&o, "tool_use_result");
    if (result != nullptr && (result->contains("stdout") || result->contains("stderr"))) {
      output = std::string(str(*result, "stdout"));
      if (!str(*result, "stderr").empty()) output += (output.empty() ? "" : "\n") + std::string(str(*result, "stderr"));
      const json::value* flag = result->if_contains("interrupted");
      interrupted = flag != nullptr && flag->is_bool() && flag->get_bool();
    } else {
      output = content_text(block.if_contains("content"));
    }
    const json::value* is_error = block.if_contains("is_error");
    const bool failed = is_error != nullptr && is_error->is_bool() && is_error->get_bool();
    bool truncated = false;
    json::object payload{{"toolCallId", id},
                         {"tool", call != tool_calls_.end() ? call->second.tool : std::string("unknown")},
                         {"status", declined(o, id) ? "declined" : failed || interrupted ? "failed" : "completed"},
                         {"output", bounded_text(output, kToolOutputBytes, &truncated)}};
    if (call != tool_calls_.end()) payload["name"] = call->second.name;
    if (truncated) payload["truncated"] = true;
    if (interrupted) payload["interrupted"] = true;
    out.events.push_back(make_event(AGENTRY_EVENT_TOOL_COMPLETED, nest(std::move(payload))));
  }
}

void Normalizer::on_result(const json::object& o, Parsed& out) {
  TurnResult result;
  const json::value* is_error = o.if_contains("is_error");
  result.is_error = is_error != nullptr && is_error->is_bool() && is_error->get_bool();
  result.subtype = std::string(str(o, "subtype"));
  result.terminal_reason = std::string(str(o, "terminal_reason"));
  if (result.is_error) {
    result.message = std::string(str(o, "result"));
    if (const json::value* errors = o.if_contains("errors"); result.message.empty() && errors && errors->is_array())
      for (const json::value& e : errors->get_array())
        if (e.is_string()) result.message += (result.message.empty() ? "" : "; ") + std::string(e.get_string());
    if (result.message.empty()) result.message = "claude ended the turn with " + result.subtype;
    result.message = bounded_text(result.message, kNoticeBytes);
  }
  const json::object* usage = object_field(&o, "usage");
  if (usage != nullptr) {
    // A usage event carries what was used since the previous one (events.h): each result
    // reports its own turn's tokens, so they are passed on as they are.
    json::object payload{
        {"inputTokens", integer(usage, "input_tokens") + integer(usage, "cache_creation_input_tokens")},
        {"outputTokens", integer(usage, "output_tokens")},
        {"cachedInputTokens", integer(usage, "cache_read_input_tokens")}};
    // modelUsage is keyed by model; with one model the turn's tokens are that model's.
    if (const json::object* by_model = object_field(&o, "modelUsage"); by_model != nullptr && by_model->size() == 1)
      payload["model"] = by_model->begin()->key();
    out.events.push_back(make_event(AGENTRY_EVENT_USAGE, payload));
  }
  out.result = std::move(result);
}

void Normalizer::on_control_request(const json::object& o, Parsed& out) {
  ControlRequest request;
  request.request_id = std::string(str(o, "request_id"));
  if (const json::object* body = object_field(&o, "request"); body != nullptr) {
    request.subtype = std::string(str(*body, "subtype"));
    request.tool_name = std::string(str(*body, "tool_name"));
    request.tool_use_id = std::string(str(*body, "tool_use_id"));
    if (const json::value* input = body->if_contains("input")) request.input = *input;
  }
  if (request.input.is_null()) request.input = json::object();
  out.control_request = std::move(request);
}

void Normalizer::on_control_response(const json::object& o, Parsed& out) {
  const json::object* response = object_field(&o, "response");
  if (response == nullptr || str(*response, "subtype") != "error") return;  // our requests, answered
  out.events.push_back(notice("warning", "claude refused control request " + std::string(str(*response, "request_id")) +
                                             ": " + std::string(str(*response, "error"))));
}

void Normalizer::unknown(std::string kind, std::string_view line, Parsed& out) {
  const int seen = unknown_counts_[kind]++;
  if (seen < kUnknownNoticesPerKind) {
    out.events.push_back(notice("info", "claude: unhandled " + kind + " line: " + bounded_text(line, kUnknownLineBytes)));
  } else if (seen == kUnknownNoticesPerKind) {
    out.events.push_back(notice("info", "claude: further unhandled " + kind + " lines are not shown"));
  }
}

}  // namespace agentry::claude
