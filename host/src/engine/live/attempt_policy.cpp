#include "engine/live/attempt_policy.hpp"

#include <algorithm>

namespace agentry::engine {
namespace {

std::string stopped_by(const AttemptEnd& end) { return end.abort_requested ? "user" : "shutdown"; }

AttemptDecision ended(core::RunStatus status, std::string reason, std::string ended_by) {
  AttemptDecision d;
  d.status = status;
  d.reason = std::move(reason);
  d.ended_by = std::move(ended_by);
  return d;
}

AttemptDecision stopped(const AttemptEnd& end) {
  std::string reason = end.message;
  if (reason.empty()) reason = end.abort_requested ? "aborted" : "agentry is shutting down";
  return ended(core::RunStatus::aborted, std::move(reason), stopped_by(end));
}

std::string task_list(const std::vector<const core::Task*>& tasks) {
  std::string out;
  for (const auto* t : tasks) out += (out.empty() ? "" : ", ") + t->id;
  return out;
}

std::string nudge_for(const AttemptEnd& end, const std::vector<const core::Task*>& incomplete, int next_index,
                      int max_attempts) {
  std::string text;
  if (end.outcome != "success")
    text += "The previous attempt failed" + (end.message.empty() ? std::string() : ": " + end.message) + ".\n";
  text += "These tasks are not complete yet:\n";
  for (const auto* t : incomplete)
    text += "- " + t->id + " (" + t->title + ") [" + std::string(core::to_string(t->status)) + "]\n";
  text += "Continue the work, and mark each task completed or blocked. (attempt " + std::to_string(next_index) +
          " of " + std::to_string(max_attempts) + ")";
  return text;
}

}  // namespace

AttemptDecision decide_after_attempt(const AttemptEnd& end, const std::vector<core::Task>& tasks,
                                     int attempts_in_session, int max_attempts_per_session) {
  const bool stop_requested = end.abort_requested || end.shutdown_requested;
  // Nothing to retry: the work the restart left behind is lost, and the run ends with it
  // (unless the user or a shutdown stopped the takeover: that decides).
  if (end.adoption_failed && end.outcome != "success" && !(end.outcome == "interrupted" && stop_requested)) {
    std::string reason = end.message.empty() ? "the run could not be taken over after a restart" : end.message;
    return ended(core::RunStatus::error, std::move(reason), "restart");
  }
  if (end.timeout_message) return ended(core::RunStatus::error, *end.timeout_message, "agent");
  // The host stopped it at the run's hard budget: the user decides what follows.
  if (end.budget_message) return ended(core::RunStatus::blocked, *end.budget_message, "budget");
  if (end.outcome == "interrupted" && stop_requested) return stopped(end);
  if (end.forced || end.outcome == "interrupted") {
    std::string reason = end.message;
    if (reason.empty()) reason = end.outcome == "interrupted" ? "the agent was interrupted" : "the agent failed";
    return ended(core::RunStatus::error, std::move(reason), "agent");
  }
  const bool succeeded = end.outcome == "success";
  if (tasks.empty()) {
    if (succeeded) return ended(core::RunStatus::success, end.message.empty() ? "the agent finished" : end.message, "agent");
    return ended(core::RunStatus::error, end.message.empty() ? "the agent failed" : end.message, "agent");
  }
  for (const auto& t : tasks)
    if (t.status == core::TaskStatus::blocked) return ended(core::RunStatus::blocked, "task " + t.id + " is blocked", "agent");
  std::vector<const core::Task*> incomplete;
  for (const auto& t : tasks)
    if (t.status != core::TaskStatus::completed) incomplete.push_back(&t);
  if (incomplete.empty()) return ended(core::RunStatus::success, "all tasks completed", "agent");
  if (stop_requested) return stopped(end);
  if (attempts_in_session < max_attempts_per_session) {
    AttemptDecision d;
    d.retry = true;
    d.nudge = nudge_for(end, incomplete, attempts_in_session + 1, max_attempts_per_session);
    for (const auto* t : incomplete) d.incomplete_task_ids.push_back(t->id);
    return d;
  }
  std::string reason = "tasks still incomplete after " + std::to_string(attempts_in_session) +
                       (attempts_in_session == 1 ? " attempt: " : " attempts: ") + task_list(incomplete);
  if (!succeeded && !end.message.empty()) reason += " (last attempt: " + end.message + ")";
  return ended(core::RunStatus::exhausted, std::move(reason), "agent");
}

AttemptDecision decide_after_reinvoke(const AttemptEnd& end, int attempts_in_session, int max_attempts_per_session,
                                      const std::string& prompt) {
  if (end.abort_requested || end.shutdown_requested) return stopped(end);
  if (attempts_in_session < max_attempts_per_session) {
    AttemptDecision d;
    d.retry = true;
    d.nudge = prompt;
    return d;
  }
  return ended(core::RunStatus::exhausted,
               "an afterAttempt hook asked for another attempt (reinvoke), but the session's " +
                   std::to_string(max_attempts_per_session) + (max_attempts_per_session == 1 ? " attempt is" : " attempts are") +
                   " used",
               "agent");
}

}  // namespace agentry::engine
