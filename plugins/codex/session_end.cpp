// How the attempt ends: a connection that never came or was lost, a failure, letting a
// turn go on without us (ext/detach.h), the link closed, then the terminal FINISHED.
#include "agentry/plugin/events.h"
#include "protocol_fields.hpp"
#include "session.hpp"

namespace agentry::codex {

namespace json = boost::json;
using namespace protocol;

void Session::connect_failed(const std::string& why) {
  if (cfg_.adopt && !adoption_reported_) adoption("finalized", "remote_unreachable", "", why);
  end(Final{"error", "codex backend: " + why});
}

void Session::lost_connection(const std::string& reason) {
  if (cfg_.adopt && !adoption_reported_) adoption("finalized", "remote_unreachable", "", reason);
  if (interrupting_)
    end(stop_outcome(" (" + reason + ")"));
  else
    end(Final{"error", (turn_started_ ? "the turn did not finish: " : "") + reason});
}

void Session::fail(std::string message) {
  if (final_) return;
  end(interrupting_ && !timed_out_ ? stop_outcome(" (" + message + ")") : Final{"error", std::move(message)});
}

void Session::let_go(std::string message) {
  if (final_) return;
  detached_ = true;
  end(Final{"detached", std::move(message)});
}

void Session::end(Final outcome) {
  if (final_) return;
  final_ = std::move(outcome);
  setup_timer_.cancel();
  run_timer_.cancel();
  interrupt_timer_.cancel();
  if (!detached_) cancel_approvals();  // detached: the turn goes on, and may ask again
  if (!link_ || link_closed_) return finish();
  link_->close();  // on_closed() finishes
}

void Session::finish() noexcept {
  if (abandoned_ || !running_.load()) return;
  helper_links_.reset();  // the app-server that used them is gone
  try {
    const Final f = final_.value_or(Final{"error", "codex backend: ended without an outcome"});
    json::object payload{{"outcome", f.outcome}};
    if (!f.message.empty()) payload["message"] = clip(f.message, 8192);
    if (!thread_id_.empty()) payload["threadId"] = thread_id_;
    if (!turn_id_.empty()) payload["turnId"] = turn_id_;
    if (detached_) payload["transportType"] = transport_name(cfg_.transport);
    const std::string text = json::serialize(payload);
    running_.store(false);  // the host may start() again once it has FINISHED
    events_.emit_serialized(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, text);
  } catch (...) {
    running_.store(false);
    events_.emit_serialized(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL,
                            R"({"outcome":"error","message":"codex backend: out of memory"})");
  }
}

void Session::abandon() noexcept {
  abandoned_ = true;
  running_.store(false);
  setup_timer_.cancel();
  run_timer_.cancel();
  interrupt_timer_.cancel();
  if (link_) link_->abandon();
}

void Session::emit(const Event& event) {
  if (!abandoned_) events_.emit_serialized(event.type, event.flags, event.payload);
}

void Session::emit(uint16_t type, json::object payload) { emit(Event{type, 0, json::serialize(payload)}); }

}  // namespace agentry::codex
