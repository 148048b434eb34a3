#include "api/compat/timeline_translation.hpp"

#include "api/compat/compat_json.hpp"

#include <boost/json/value.hpp>

#include <algorithm>

namespace agentry::api::compat {
namespace json = boost::json;
namespace {
using detail::int_at;
using detail::member;
using detail::string_at;

/// A member as text: a string as it is, an integer in decimal (an exit code), else "".
std::string text_of(const json::object& o, std::string_view key) {
  const auto* v = member(o, key);
  if (v && v->is_int64()) return std::to_string(v->as_int64());
  return string_at(o, key);
}

int int_of(const json::object& o, std::string_view key, int fallback) {
  return static_cast<int>(int_at(o, key, fallback));
}

/// One line: a notice is a glance at what happened, the timeline holds the whole.
std::string one_line(std::string text, std::size_t max = 200) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (text.size() > max) text = text.substr(0, max) + "…";
  return text;
}

/// Our events that become a backend_notice line, and that line.
std::optional<std::string> notice_line(const std::string& kind, const json::object& p) {
  if (kind == "notice") return one_line(text_of(p, "message").empty() ? text_of(p, "text") : text_of(p, "message"));
  if (kind == "reasoning") return "thinking: " + one_line(text_of(p, "text"));
  if (kind == "tool.started") {
    std::string what = text_of(p, "command");
    if (what.empty()) what = text_of(p, "tool");
    return "tool started: " + one_line(what.empty() ? "tool" : what);
  }
  if (kind == "tool.completed") {
    std::string status = text_of(p, "status");
    return "tool " + (status.empty() ? std::string("completed") : one_line(status)) +
           (text_of(p, "exitCode").empty() ? "" : " (exit " + text_of(p, "exitCode") + ")");
  }
  if (kind == "approval.request") return "approval requested: " + one_line(text_of(p, "title"));
  if (kind == "plan") {
    const auto* steps = p.if_contains("steps");
    return "plan updated (" + std::to_string(steps && steps->is_array() ? steps->as_array().size() : 0) + " steps)";
  }
  if (kind == "diff") return std::string("diff updated");
  return std::nullopt;
}

std::string item_of(const json::object& p) {
  for (const char* key : {"itemId", "toolCallId"})
    if (auto id = text_of(p, key); !id.empty()) return id;
  return {};
}

json::object event(const char* type) { return json::object{{"type", type}}; }

}  // namespace

TimelineTranslation::Attempt* TimelineTranslation::attempt(int number) {
  for (auto it = attempts_.rbegin(); it != attempts_.rend(); ++it)
    if (it->number == number) return &*it;
  return nullptr;
}

void TimelineTranslation::append_text(std::vector<json::object>& out, int attempt_number, const std::string& text) {
  if (text.empty()) return;
  if (auto* a = attempt(attempt_number)) a->transcript += text;
  auto e = event("agent_message_delta");
  e["text"] = text;
  out.push_back(std::move(e));
}

void TimelineTranslation::append_notice(std::vector<json::object>& out, int attempt_number, const std::string& text) {
  if (auto* a = attempt(attempt_number)) a->notices += text + "\n";
  auto e = event("backend_notice");
  e["text"] = text;
  out.push_back(std::move(e));
}

void TimelineTranslation::end_live_attempts(const std::string& at) {
  for (auto& a : attempts_)
    if (a.live) {
      a.live = false;
      if (!a.ended_at) a.ended_at = at;
    }
}

std::vector<json::object> TimelineTranslation::translate(const json::object& native, const RunFactsSource& facts) {
  std::vector<json::object> out;
  const std::string kind = text_of(native, "kind");
  const std::string at = text_of(native, "at");
  static const json::object no_payload;
  const auto* payload_value = native.if_contains("payload");
  const json::object& p = payload_value && payload_value->is_object() ? payload_value->as_object() : no_payload;
  const int number = int_of(native, "attemptNumber", int_of(p, "attemptNumber", 0));

  if (kind == "attempt.started") {
    const int session = int_of(p, "sessionIndex", 0);
    const int index = int_of(p, "attemptIndexInSession", 0);
    const bool new_session = sessions_started_.insert(session).second;
    if (new_session || !facts_) facts_ = facts();
    if (new_session) {
      auto started = event("run_started");
      started["runId"] = run_id_;
      started["agentName"] = facts_ ? facts_->agent_name : std::string();
      started["assignmentSourcePath"] = facts_ && facts_->assignment_source_path
                                            ? json::value(*facts_->assignment_source_path)
                                            : json::value(nullptr);
      started["name"] = facts_ && facts_->name ? json::value(*facts_->name) : json::value(nullptr);
      started["cwd"] = facts_ ? facts_->cwd : std::string();
      started["sessionIndex"] = session;
      out.push_back(std::move(started));
    }
    if (index > 0) {
      const auto* incomplete = p.if_contains("incompleteTasks");
      auto retrying = event("retrying");
      retrying["incompleteCount"] = incomplete && incomplete->is_array() ? incomplete->as_array().size() : 0;
      retrying["invalidStatusCount"] = 0;
      out.push_back(std::move(retrying));
    }
    end_live_attempts(at);
    Attempt a;
    a.number = number;
    a.session_index = session;
    a.index_in_session = index;
    a.started_at = at;
    a.prompt = text_of(p, "prompt");
    if (a.prompt.empty() && facts_)
      if (auto it = facts_->session_prompts.find(session); it != facts_->session_prompts.end()) a.prompt = it->second;
    attempts_.push_back(a);
    streamed_.clear();
    auto started = event("attempt_started");
    started["attemptNumber"] = a.number;
    started["sessionIndex"] = a.session_index;
    started["attemptIndexInSession"] = a.index_in_session;
    started["startedAt"] = a.started_at;
    started["prompt"] = a.prompt;
    out.push_back(std::move(started));
    return out;
  }
  if (kind == "message.delta") {
    if (text_of(p, "role").empty() || text_of(p, "role") == "assistant") {
      const std::string text = text_of(p, "text");
      streamed_[item_of(p)] += text.size();
      append_text(out, number, text);
    }
    return out;
  }
  if (kind == "message.completed") {
    if (!text_of(p, "role").empty() && text_of(p, "role") != "assistant") return out;
    const std::string text = text_of(p, "text");
    const std::string item = item_of(p);
    const std::size_t sent = std::min(streamed_[item], text.size());
    streamed_.erase(item);
    append_text(out, number, text.substr(sent) + "\n\n");
    return out;
  }
  if (auto line = notice_line(kind, p)) {
    append_notice(out, number, *line);
    return out;
  }
  if (kind == "attempt.finished") {
    if (auto* a = attempt(number)) {
      const std::string outcome = text_of(p, "outcome");
      a->live = false;
      a->ended_at = at;
      a->exit_code = outcome == "success" ? 0 : outcome == "interrupted" ? 130 : 1;
      a->timed_out = text_of(p, "message").find("timed out") != std::string::npos;
    }
    return out;
  }
  if (kind == "run.finished") {
    end_live_attempts(at);
    const std::string status = text_of(p, "status");
    if (status == "aborted") out.push_back(event("run_aborted"));
    auto current = facts();
    auto finished = event("run_finished");
    json::object summary = current ? current->completion_summary : json::object{};
    // The session's own outcome, even if the run has moved on since (a queued message).
    if (!status.empty()) summary["status"] = status;
    summary["runId"] = run_id_;
    finished["summary"] = std::move(summary);
    out.push_back(std::move(finished));
    return out;
  }
  return out;  // deltas of reasoning and tool output, usage, checkpoints: not theirs
}

json::array TimelineTranslation::attempts() const {
  json::array out;
  for (const auto& a : attempts_) {
    out.push_back(json::object{
        {"attemptNumber", a.number},
        {"sessionIndex", a.session_index},
        {"attemptIndexInSession", a.index_in_session},
        {"startedAt", a.started_at},
        {"endedAt", a.ended_at ? json::value(*a.ended_at) : json::value(nullptr)},
        {"prompt", a.prompt},
        {"transcript", a.transcript},
        {"notices", a.notices},
        {"exitCode", a.exit_code ? json::value(*a.exit_code) : json::value(nullptr)},
        {"timedOut", a.timed_out},
        {"live", a.live},
        {"provenance", json::object{{"kind", "task_runner"}}},
    });
  }
  return out;
}

}  // namespace agentry::api::compat
