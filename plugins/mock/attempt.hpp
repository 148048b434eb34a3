// One attempt of the mock backend: a worker thread that plays a Script.
//
// The control context (MockBackend) and the worker share the small state below under
// one mutex. The worker never blocks the control context: interrupt() and the input
// calls only set fields and notify. Every attempt starts with a CHECKPOINT (a fresh
// session's token is "mock-<session_id>"; a resumed one re-emits the token it was given
// and adds a NOTICE "resumed <token>") and ends with exactly one terminal FINISHED.
#pragma once

#include <agentry/plugin/cpp/backend.hpp>
#include <atomic>
#include <boost/json/object.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "mock/script.hpp"

namespace agentry::mock {

// How an attempt ended; becomes the FINISHED payload.
struct Finish {
  std::string outcome;  // "success" | "error" | "interrupted"
  std::string message;  // empty: none
};

class Attempt {
 public:
  Attempt(plugin::Host& host, plugin::StartParams params, Script script);
  // Interrupts (if still running) and joins the worker (obligation 10).
  ~Attempt();
  Attempt(const Attempt&) = delete;
  Attempt& operator=(const Attempt&) = delete;

  // [control] Starts the worker. May throw std::system_error.
  void launch();
  // [control] True once the worker has settled its outcome: from then on it takes no
  // input. Set before FINISHED goes out, so it holds when the host has the event.
  bool finishing() const noexcept { return finishing_.load(std::memory_order_acquire); }

  // [control] Idempotent; the worker finishes "interrupted" at its next check.
  void interrupt(std::string_view reason);
  // [control] A user message for a "waitInput" step (queued until one asks).
  void give_message(std::string text);
  // [control] The answer to the pending "ask". AGENTRY_ERR_NOT_FOUND for another id.
  agentry_status_t give_decision(const std::string& approval_id, bool approve);

 private:
  using Clock = std::chrono::steady_clock;

  void run() noexcept;                  // the worker thread
  std::optional<Finish> play();         // the steps; nullopt: all done
  bool interrupted() const noexcept { return interrupted_.load(std::memory_order_acquire); }
  // Waits until `deadline` or until `ready()` (called under mutex_) holds. False when
  // interrupted first.
  bool wait_until(Clock::time_point deadline, const std::function<bool()>& ready);
  bool sleep_until(Clock::time_point deadline);
  // wait_until() without a deadline ("hang", "ask", "waitInput").
  bool wait_forever(const std::function<bool()>& ready);
  // Sleeps until event `i` (0-based) of a `rate_hz` stream begun at `t0` is due.
  bool pace(Clock::time_point t0, uint64_t i, double rate_hz);
  void emit(uint16_t type, const boost::json::object& payload, uint32_t flags = 0);
  void emit_text(uint16_t type, std::string_view payload, uint32_t flags = 0);
  void notice(const std::string& level, const std::string& message);
  std::string next_id(const char* prefix);

  // One per step kind (steps.cpp). nullopt: go on with the next step.
  std::optional<Finish> step(const Say& s);
  std::optional<Finish> step(const Events& s);
  std::optional<Finish> step(const Reasoning& s);
  std::optional<Finish> step(const Tool& s);
  std::optional<Finish> step(const Usage& s);
  std::optional<Finish> step(const Notice& s);
  std::optional<Finish> step(const Checkpoint& s);
  std::optional<Finish> step(const Ask& s);
  std::optional<Finish> step(const WaitInput& s);
  std::optional<Finish> step(const Sleep& s);
  std::optional<Finish> step(const Hang& s);
  std::optional<Finish> step(const Fail& s);
  std::optional<Finish> step(const Exec& s);
  std::optional<Finish> step(const Frame& s);

  plugin::Host& host_;
  const plugin::StartParams params_;
  const Script script_;
  uint64_t ids_ = 0;  // worker only: suffix of generated item/tool/approval ids

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::atomic<bool> interrupted_{false};  // also read without the mutex by busy loops
  std::string reason_;
  std::deque<std::string> messages_;
  std::string pending_approval_;  // the id an "ask" waits for; empty when none
  std::optional<bool> decision_;  // the answer to pending_approval_

  std::atomic<bool> finishing_{false};
  std::thread worker_;  // last: started by launch() once everything above exists
};

}  // namespace agentry::mock
