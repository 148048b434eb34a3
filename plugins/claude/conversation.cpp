#include "conversation.hpp"

#include <boost/json/object.hpp>

#include "agentry/plugin/events.h"
#include "stdin_lines.hpp"

namespace agentry::claude {

namespace json = boost::json;

void Step::append(Step other) {
  for (Event& e : other.events) events.push_back(std::move(e));
  for (std::string& w : other.writes) writes.push_back(std::move(w));
  close_stdin = close_stdin || other.close_stdin;
}

std::string Conversation::next_request_id() { return "agentry-" + std::to_string(++request_counter_); }

Step Conversation::open(std::string_view prompt) {
  Step step;
  step.writes.push_back(initialize_request(next_request_id()));
  step.writes.push_back(user_message(prompt));
  outstanding_ = 1;
  return step;
}

Step Conversation::on_line(std::string_view line) {
  Parsed parsed = normalizer_.on_line(line);
  Step step;
  if (parsed.session_id && *parsed.session_id != session_id_) {
    // system/init repeats at every turn; the host needs the token once per change.
    session_id_ = *parsed.session_id;
    step.events.push_back(make_event(AGENTRY_EVENT_CHECKPOINT, {{"resumeToken", session_id_}}));
  }
  step.events.insert(step.events.end(), std::make_move_iterator(parsed.events.begin()),
                     std::make_move_iterator(parsed.events.end()));
  if (parsed.cancelled_request) {
    if (pending_.erase(*parsed.cancelled_request) > 0)
      step.events.push_back(notice("info", "claude withdrew approval request " + *parsed.cancelled_request));
  }
  if (parsed.control_request) step.append(on_control_request(std::move(*parsed.control_request)));
  if (parsed.result) step.append(on_result(*parsed.result));
  return step;
}

Step Conversation::on_control_request(ControlRequest request) {
  Step step;
  if (request.request_id.empty()) {
    step.events.push_back(notice("warning", "claude sent a control request without request_id; it cannot be answered"));
    return step;
  }
  if (request.subtype != "can_use_tool") {
    step.writes.push_back(control_error(request.request_id, "agentry does not handle " + request.subtype + " requests"));
    step.events.push_back(notice("warning", "claude asked for '" + request.subtype + "', which agentry does not handle; answered with an error"));
    return step;
  }
  const std::string summary = tool_summary(request.tool_name, request.input);
  if (interrupting_) {
    step.writes.push_back(deny_tool(request.request_id, "The user interrupted this turn."));
    return step;
  }
  if (unrestricted_) {
    // The run is unrestricted: Claude still asks (bypassPermissions is refused as root),
    // and the answer is recorded so the timeline shows what ran without a person's yes.
    step.writes.push_back(allow_tool(request.request_id, request.input));
    step.events.push_back(notice("info", "auto-approved " + request.tool_name + ": " + summary));
    return step;
  }
  json::object payload{{"approvalId", request.request_id},
                       {"kind", request.tool_name == "Bash" ? "command" : "tool"},
                       {"summary", bounded_text(summary, kNoticeBytes)},
                       {"details", {{"tool", request.tool_name}, {"input", request.input}, {"toolCallId", request.tool_use_id}}}};
  step.events.push_back(make_event(AGENTRY_EVENT_APPROVAL_REQUEST, payload));
  pending_.emplace(request.request_id, PendingApproval{request.tool_name, std::move(request.input)});
  return step;
}

Step Conversation::on_result(const TurnResult& result) {
  Step step;
  if (outstanding_ == 0) {
    step.events.push_back(notice("warning", "claude reported the end of a turn that agentry did not start"));
  } else {
    --outstanding_;
  }
  last_result_ = result;
  if (outstanding_ > 0) {
    if (result.is_error && !interrupting_)
      step.events.push_back(notice("error", "claude's turn failed: " + result.message + "; its queued turn follows"));
    // An interrupt covers the whole attempt: a queued follow-up starts right after this
    // result, so interrupt that one too.
    if (interrupting_) step.writes.push_back(interrupt_request(next_request_id()));
    return step;
  }
  if (!pending_.empty()) step.append(deny_pending("The turn ended."));
  stdin_closed_ = true;
  step.close_stdin = true;
  return step;
}

std::optional<Step> Conversation::on_message(std::string_view text) {
  if (outstanding_ == 0 || stdin_closed_ || interrupting_) return std::nullopt;
  Step step;
  step.writes.push_back(user_message(text));
  ++outstanding_;
  step.events.push_back(notice("info",
                               "message queued by claude as its next turn; this attempt continues until that turn ends"));
  return step;
}

std::optional<Step> Conversation::on_approval(std::string_view approval_id, bool approve) {
  const auto it = pending_.find(approval_id);
  if (it == pending_.end()) return std::nullopt;
  Step step;
  if (approve) step.writes.push_back(allow_tool(it->first, it->second.input));
  else step.writes.push_back(deny_tool(it->first, "The user denied this tool call."));
  pending_.erase(it);
  return step;
}

Step Conversation::deny_pending(std::string_view message) {
  Step step;
  for (const auto& [request_id, approval] : pending_) {
    step.writes.push_back(deny_tool(request_id, message));
    step.events.push_back(notice("info", "approval " + request_id + " (" + approval.tool_name + ") denied: " +
                                             std::string(message)));
  }
  pending_.clear();
  return step;
}

Step Conversation::on_interrupt(std::string_view reason) {
  Step step;
  if (outstanding_ == 0 || interrupting_) return step;
  interrupting_ = true;
  interrupt_reason_ = std::string(reason);
  step.append(deny_pending("The user interrupted this turn."));
  step.writes.push_back(interrupt_request(next_request_id()));
  return step;
}

Step Conversation::on_timeout(int64_t seconds) {
  if (outstanding_ == 0 || interrupting_) return {};
  timed_out_after_ = seconds;
  return on_interrupt("timed out");
}

Outcome Conversation::outcome(std::string_view process_note) const {
  if (timed_out_after_ >= 0) return {"error", "timed out after " + std::to_string(timed_out_after_) + " s"};
  const std::string interrupted = interrupt_reason_.empty() ? "interrupted" : "interrupted: " + interrupt_reason_;
  if (outstanding_ > 0 || !last_result_) {
    if (interrupting_) return {"interrupted", interrupted};
    return {"error", std::string(process_note.empty() ? "claude stopped before its turn ended" : process_note)};
  }
  if (!last_result_->is_error) return {"success", {}};
  // After our interrupt, Claude reports error_during_execution; a turn that had already
  // ended on its own keeps its outcome.
  if (interrupting_) return {"interrupted", interrupted};
  return {"error", last_result_->message};
}

}  // namespace agentry::claude
