#include "normalizer.hpp"

#include <boost/json.hpp>
#include <set>

#include "agentry/plugin/events.h"
#include "agentry/plugin_common/json_fields.hpp"
#include "agentry/plugin_common/line_splitter.hpp"
#include "sandbox.hpp"

namespace agentry::codex {

namespace json = boost::json;
using plugin_common::object_field;
using plugin_common::text_field;

namespace {

// Payloads stay well under AGENTRY_EVENT_MAX_PAYLOAD_BYTES (1 MiB) even with JSON escaping.
constexpr std::size_t kMaxText = 256 * 1024;
constexpr std::size_t kMaxOutput = 128 * 1024;

int64_t num(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return 0;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  return 0;
}

Event make(uint16_t type, json::object payload, uint32_t flags = 0) {
  return Event{type, flags, json::serialize(payload)};
}

Event notice(std::string_view level, std::string message) {
  return make(AGENTRY_EVENT_NOTICE, json::object{{"level", level}, {"message", clip(message, kMaxText)}});
}

// Stays within the event size limit: big values are replaced by a note.
json::value bounded(const json::value& v) {
  if (json::serialize(v).size() <= kMaxText) return v;
  return json::object{{"omitted", "too large for an event"}};
}

// Item types that are not tool calls; everything else (mcpToolCall, webSearch, and types
// a later codex adds) becomes a generic TOOL_STARTED/TOOL_COMPLETED.
const std::set<std::string, std::less<>> kNotTools = {
    "userMessage",       "agentMessage",     "reasoning",       "plan", "contextCompaction", "hookPrompt",
    "enteredReviewMode", "exitedReviewMode", "subAgentActivity"};

std::string join(const json::value* parts) {
  std::string out;
  if (parts == nullptr || !parts->is_array()) return out;
  for (const json::value& p : parts->get_array())
    if (p.is_string()) out += (out.empty() ? "" : "\n\n") + std::string(p.get_string());
  return out;
}

UsageTotals totals(const json::object& breakdown) {
  return UsageTotals{num(breakdown, "inputTokens"), num(breakdown, "cachedInputTokens"), num(breakdown, "outputTokens"),
                     num(breakdown, "reasoningOutputTokens"), num(breakdown, "totalTokens")};
}

// turn/plan/updated steps -> PLAN steps (statuses in agentry's spelling).
json::array plan_steps(const json::value* plan) {
  json::array steps;
  if (plan == nullptr || !plan->is_array()) return steps;
  for (const json::value& entry : plan->get_array()) {
    if (!entry.is_object()) continue;
    const std::string status = text_field(entry.get_object(), "status");
    steps.push_back(json::object{{"step", clip(text_field(entry.get_object(), "step"), 4096)},
                                 {"status", status == "inProgress" ? "in_progress" : status}});
  }
  return steps;
}

std::string tool_status(const json::object& item) {
  const std::string status = text_field(item, "status");
  if (status == "failed" || status == "declined") return status;
  return "completed";
}

}  // namespace

std::string clip(std::string_view text, std::size_t max, bool* clipped) {
  const std::size_t n = plugin_common::utf8_prefix_length(text, max);
  if (clipped != nullptr) *clipped = n < text.size();
  return std::string(text.substr(0, n));
}

const json::object* Normalizer::item(const std::string& id) const {
  const auto it = items_.find(id);
  return it == items_.end() ? nullptr : &it->second;
}

std::vector<Event> Normalizer::on_notification(std::string_view method, const json::object& params) {
  std::vector<Event> out;
  const std::string thread = text_field(params, "threadId");
  if (!thread.empty() && !thread_id_.empty() && thread != thread_id_) return out;  // another thread's

  if (method == "item/agentMessage/delta") {
    out.push_back(make(AGENTRY_EVENT_MESSAGE_DELTA,
                       json::object{{"text", clip(text_field(params, "delta"), kMaxText)}, {"itemId", text_field(params, "itemId")}},
                       AGENTRY_EVENT_FLAG_EPHEMERAL));
  } else if (method == "item/reasoning/summaryTextDelta" || method == "item/reasoning/textDelta") {
    out.push_back(make(AGENTRY_EVENT_REASONING_DELTA,
                       json::object{{"text", clip(text_field(params, "delta"), kMaxText)}, {"itemId", text_field(params, "itemId")}},
                       AGENTRY_EVENT_FLAG_EPHEMERAL));
  } else if (method == "item/commandExecution/outputDelta" || method == "item/fileChange/outputDelta") {
    out.push_back(make(AGENTRY_EVENT_TOOL_OUTPUT_DELTA,
                       json::object{{"toolCallId", text_field(params, "itemId")}, {"text", clip(text_field(params, "delta"), kMaxText)}},
                       AGENTRY_EVENT_FLAG_EPHEMERAL));
  } else if (method == "turn/plan/updated") {
    json::object payload{{"steps", plan_steps(params.if_contains("plan"))}};
    if (std::string explanation = text_field(params, "explanation"); !explanation.empty())
      payload["explanation"] = clip(explanation, kMaxText);
    out.push_back(make(AGENTRY_EVENT_PLAN, std::move(payload)));
  } else if (method == "turn/diff/updated") {
    // Live as it changes; the last one is recorded when the turn ends.
    diff_ = text_field(params, "diff");
    out.push_back(diff_event(AGENTRY_EVENT_FLAG_EPHEMERAL));
  } else if (method == "item/started" || method == "item/completed") {
    if (const json::object* item = object_field(&params, "item")) out = on_item(*item, method == "item/completed");
  } else if (method == "thread/tokenUsage/updated") {
    const json::object* usage = object_field(&params, "tokenUsage");
    const json::object* total = usage != nullptr ? object_field(usage, "total") : nullptr;
    if (total != nullptr && (turn_id_.empty() || text_field(params, "turnId") != turn_id_)) {
      baseline_ = totals(*total);
    } else if (total != nullptr) {
      const UsageTotals now = totals(*total);
      json::object payload{{"inputTokens", now.input - baseline_.input},
                           {"outputTokens", now.output - baseline_.output},
                           {"cachedInputTokens", now.cached - baseline_.cached},
                           {"reasoningTokens", now.reasoning - baseline_.reasoning},
                           {"totalTokens", now.total - baseline_.total}};
      if (const json::value* window = usage->if_contains("modelContextWindow"); window && window->is_number())
        payload["contextWindow"] = *window;
      // Increments (events.h): the next update reports what was used after this one.
      baseline_ = now;
      out.push_back(make(AGENTRY_EVENT_USAGE, std::move(payload)));
    }
  } else if (method == "turn/started") {
    if (const json::object* turn = object_field(&params, "turn"); turn != nullptr && turn_id_.empty())
      turn_id_ = text_field(*turn, "id");
  } else if (method == "turn/completed") {
    const json::object* turn = object_field(&params, "turn");
    if (turn != nullptr && (turn_id_.empty() || text_field(*turn, "id") == turn_id_)) {
      TurnEnd end{text_field(*turn, "status"), {}};
      if (const json::object* error = object_field(turn, "error")) end.message = text_field(*error, "message");
      if (end.status == "failed" && end.message.empty()) end.message = last_error_;
      turn_end_ = std::move(end);
      if (!diff_.empty()) out.push_back(diff_event(0));
    }
  } else if (method == "error") {
    const json::object* error = object_field(&params, "error");
    std::string message = error != nullptr ? text_field(*error, "message") : std::string("unknown error");
    const json::value* retry = params.if_contains("willRetry");
    const bool will_retry = retry != nullptr && retry->is_bool() && retry->get_bool();
    if (!will_retry) last_error_ = message;
    out.push_back(notice(will_retry ? "warning" : "error", will_retry ? message + " (codex retries)" : message));
  } else if (method == "warning" || method == "guardianWarning") {
    out.push_back(notice("warning", text_field(params, "message")));
  } else if (method == "configWarning") {
    const std::string details = text_field(params, "details");
    out.push_back(notice("warning", text_field(params, "summary") + (details.empty() ? "" : ": " + details)));
  } else if (method == "deprecationNotice") {
    out.push_back(notice("info", "codex: " + text_field(params, "summary")));
  } else if (method == "model/rerouted") {
    out.push_back(notice("info", "codex rerouted the model: " + json::serialize(params)));
  }
  // Everything else (thread/status/changed, account/rateLimits/updated,
  // serverRequest/resolved, ...) is protocol bookkeeping with no event of its own.
  return out;
}

void Normalizer::remember(const json::object& item) {
  if (const std::string id = text_field(item, "id"); !id.empty()) items_[id] = item;
}

Event Normalizer::diff_event(uint32_t flags) const {
  bool truncated = false;
  json::object payload{{"diff", clip(diff_, kMaxText, &truncated)}};
  if (truncated) payload["truncated"] = true;
  return make(AGENTRY_EVENT_DIFF, std::move(payload), flags);
}

std::vector<Event> Normalizer::on_item(const json::object& item, bool completed) {
  std::vector<Event> out;
  const std::string type = text_field(item, "type");
  const std::string id = text_field(item, "id");
  if (!completed)
    items_[id] = item;
  else
    items_.erase(id);

  if (type == "agentMessage") {
    if (completed)
      out.push_back(
          make(AGENTRY_EVENT_MESSAGE_COMPLETED,
               json::object{{"text", clip(text_field(item, "text"), kMaxText)}, {"itemId", id}, {"role", "assistant"}}));
  } else if (type == "reasoning") {
    std::string text = join(item.if_contains("summary"));
    if (text.empty()) text = join(item.if_contains("content"));
    if (completed && !text.empty())
      out.push_back(make(AGENTRY_EVENT_REASONING, json::object{{"text", clip(text, kMaxText)}, {"itemId", id}}));
  } else if (type == "userMessage") {
    // our own prompt, echoed back
  } else if (kNotTools.contains(type)) {
    if (completed) {
      std::string text = text_field(item, "text");
      out.push_back(notice("info", "codex " + type + (text.empty() ? "" : ": " + text)));
    }
  } else if (type == "commandExecution") {
    json::object payload{{"toolCallId", id}, {"tool", "command"}, {"command", text_field(item, "command")}};
    if (!completed) {
      payload["input"] = json::object{{"cwd", item.contains("cwd") ? item.at("cwd") : json::value()}};
      out.push_back(make(AGENTRY_EVENT_TOOL_STARTED, std::move(payload)));
    } else {
      payload["status"] = tool_status(item);
      bool clipped = false;
      payload["output"] = clip(text_field(item, "aggregatedOutput"), kMaxOutput, &clipped);
      if (clipped) payload["outputTruncated"] = true;
      if (const json::value* code = item.if_contains("exitCode"); code && code->is_number())
        payload["exitCode"] = *code;
      if (const json::value* ms = item.if_contains("durationMs"); ms && ms->is_number()) payload["durationMs"] = *ms;
      const bool failed = tool_status(item) == "failed";
      out.push_back(make(AGENTRY_EVENT_TOOL_COMPLETED, std::move(payload)));
      // The sandbox kept the command from running: say so, not only in the tool's output.
      if (const std::optional<std::string> why = failed ? sandbox_failure_message(text_field(item, "aggregatedOutput"))
                                                        : std::nullopt)
        out.push_back(
            make(AGENTRY_EVENT_NOTICE, json::object{{"level", "error"}, {"message", *why}, {"toolCallId", id}}));
    }
  } else if (type == "fileChange") {
    json::object payload{{"toolCallId", id}, {"tool", "file_change"}};
    const json::value* changes = item.if_contains("changes");
    if (!completed) {
      if (changes != nullptr && changes->is_array() && !changes->get_array().empty() &&
          changes->get_array()[0].is_object())
        payload["path"] = text_field(changes->get_array()[0].get_object(), "path");
      payload["input"] = json::object{{"changes", changes != nullptr ? bounded(*changes) : json::array()}};
      out.push_back(make(AGENTRY_EVENT_TOOL_STARTED, std::move(payload)));
    } else {
      payload["status"] = tool_status(item);
      payload["changes"] = changes != nullptr ? bounded(*changes) : json::array();
      out.push_back(make(AGENTRY_EVENT_TOOL_COMPLETED, std::move(payload)));
    }
  } else {
    // mcpToolCall, dynamicToolCall, webSearch, imageView, ... and item types this plugin
    // does not know yet: shown as a generic tool with the whole item as its input.
    std::string tool = type.empty() ? std::string("unknown") : type;
    if (const std::string name = text_field(item, "tool"); !name.empty()) tool += ":" + name;
    json::object payload{{"toolCallId", id}, {"tool", tool}};
    if (!completed) {
      payload["input"] = bounded(item);
      out.push_back(make(AGENTRY_EVENT_TOOL_STARTED, std::move(payload)));
    } else {
      payload["status"] = tool_status(item);
      payload["output"] = clip(json::serialize(item), kMaxOutput);
      out.push_back(make(AGENTRY_EVENT_TOOL_COMPLETED, std::move(payload)));
    }
  }
  return out;
}

}  // namespace agentry::codex
