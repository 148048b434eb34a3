// How the attempt ends and what it sends: requests and events out, a lost connection,
// a failure, letting a turn go on without us (ext/detach.h), the terminal FINISHED.
#include "session_driver.hpp"

#include <poll.h>

#include <cerrno>
#include <cstring>

#include "agentry/plugin/events.h"

namespace agentry::codex {

namespace json = boost::json;
using namespace driver_detail;
using std::chrono::milliseconds;

void Session::Driver::lost_connection() {
  const std::string reason = conn_->end_reason();
  if (cfg_.adopt && !adoption_reported_) adoption("finalized", "remote_unreachable", "", reason);
  if (interrupting_)
    final_ = stop_outcome(" (" + reason + ")");
  else
    final_ = Final{"error", (turn_started_ ? "the turn did not finish: " : "") + reason};
}

void Session::Driver::fail(std::string message) {
  if (final_) return;
  final_ = interrupting_ && !timed_out_ ? stop_outcome(" (" + message + ")") : Final{"error", std::move(message)};
}

void Session::Driver::let_go(std::string message) {
  if (final_) return;
  detached_ = true;
  final_ = Final{"detached", std::move(message)};
}

void Session::Driver::request(const char* method, json::object params, Purpose purpose) {
  const int64_t id = next_id_++;
  pending_[id] = purpose;
  send(json::object{{"method", method}, {"id", id}, {"params", std::move(params)}});
}

void Session::Driver::send(const json::object& message) {
  if (!conn_ || send_failed_) return;
  try {
    conn_->send(json::serialize(message));
  } catch (const std::exception& e) {
    // The read side reports the closed connection with the better reason.
    send_failed_ = true;
    host_.log(AGENTRY_LOG_WARNING, std::string("codex: ") + e.what());
  }
}

void Session::Driver::emit(const Event& event) {
  if (stopped_) return;
  const bool ephemeral = (event.flags & AGENTRY_EVENT_FLAG_EPHEMERAL) != 0;
  const agentry_status_t status = host_.emit_with_retry(event.type, event.flags, event.payload,
                                                        ephemeral ? milliseconds(2000) : milliseconds(30000));
  if (status != AGENTRY_OK)
    host_.log(AGENTRY_LOG_WARNING, "codex: event of type " + std::to_string(event.type) + " dropped: emit returned " +
                                       std::to_string(status));
}

void Session::Driver::teardown() noexcept {
  try {
    if (!detached_) cancel_approvals();  // detached: the turn goes on, and may ask again
  } catch (...) {
  }
  if (conn_) conn_->close();
}

void Session::Driver::finish() noexcept {
  try {
    const Final f = final_.value_or(Final{"error", "codex backend: ended without an outcome"});
    json::object payload{{"outcome", f.outcome}};
    if (!f.message.empty()) payload["message"] = clip(f.message, 8192);
    if (!thread_id_.empty()) payload["threadId"] = thread_id_;
    if (!turn_id_.empty()) payload["turnId"] = turn_id_;
    if (detached_) payload["transportType"] = transport_name(cfg_.transport);
    const std::string text = json::serialize(payload);
    s_.running_.store(false);  // the host may start() again once it has FINISHED
    host_.emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, text, milliseconds(60000));
  } catch (...) {
    s_.running_.store(false);
    host_.emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL,
                          R"({"outcome":"error","message":"codex backend: out of memory"})");
  }
}

}  // namespace agentry::codex
