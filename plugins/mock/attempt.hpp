// One attempt of the mock backend: a coroutine on the instance's executor that plays a
// Script.
//
// The control context (MockBackend) shares the small state below with it under one mutex
// (so an approval answer for an unknown id is refused at once) and then wakes it on the
// executor; it never waits for the script. Every attempt starts with a CHECKPOINT (a fresh
// session's token is "mock-<session_id>"; a resumed one re-emits the token it was given
// and adds a NOTICE "resumed <token>") and ends with exactly one terminal FINISHED.
#pragma once

#include <agentry/plugin/cpp/backend.hpp>
#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "agentry/plugin_common/runtime/child.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "agentry/plugin_common/runtime/wakeup.hpp"
#include "mock/exec.hpp"
#include "mock/script.hpp"

namespace agentry::mock {

// How an attempt ended; becomes the FINISHED payload.
struct Finish {
  std::string outcome;  // "success" | "error" | "interrupted"
  std::string message;  // empty: none
};

class Attempt : public std::enable_shared_from_this<Attempt> {
 public:
  // [control] Starts playing `script` on `executor`. May throw std::system_error.
  static std::shared_ptr<Attempt> start(plugin::Host& host, plugin_common::runtime::Executor& executor,
                                        plugin::StartParams params, Script script);
  Attempt(const Attempt&) = delete;
  Attempt& operator=(const Attempt&) = delete;

  // [control] True once the script has settled its outcome: from then on it takes no
  // input. Set before FINISHED goes out, so it holds when the host has the event.
  bool finishing() const noexcept { return finishing_.load(std::memory_order_acquire); }
  // [control, not the executor] Returns once FINISHED is out (the instance's teardown).
  void wait_finished() { finished_.wait(); }

  // [control] Idempotent; the script finishes "interrupted" at its next step or wait.
  void interrupt(std::string_view reason);
  // [control] A user message for a "waitInput" step (queued until one asks).
  void give_message(std::string text);
  // [control] The answer to the pending "ask". AGENTRY_ERR_NOT_FOUND for another id.
  agentry_status_t give_decision(const std::string& approval_id, bool approve);

 private:
  using Clock = std::chrono::steady_clock;
  template <class T>
  using Task = boost::asio::awaitable<T>;

  Attempt(plugin::Host& host, plugin_common::runtime::Executor& executor, plugin::StartParams params, Script script);
  // [control] Wakes the script on the executor to look at the shared state again.
  void poke();

  Task<void> run();                     // the script, then FINISHED
  Task<std::optional<Finish>> play();   // the steps; nullopt: all done
  bool interrupted() const noexcept { return interrupted_.load(std::memory_order_acquire); }
  // Waits until `deadline` or until `ready()` (called under mutex_) holds. False when
  // interrupted first.
  Task<bool> wait_until(Clock::time_point deadline, std::function<bool()> ready);
  Task<bool> sleep_until(Clock::time_point deadline);
  // wait_until() without a deadline ("hang", "ask", "waitInput").
  Task<bool> wait_forever(std::function<bool()> ready);
  // Sleeps until event `i` (0-based) of a `rate_hz` stream begun at `t0` is due.
  Task<bool> pace(Clock::time_point t0, uint64_t i, double rate_hz);
  void emit(uint16_t type, const boost::json::object& payload, uint32_t flags = 0);
  void emit_text(uint16_t type, std::string_view payload, uint32_t flags = 0);
  void notice(const std::string& level, const std::string& message);
  std::string next_id(const char* prefix);

  // One per step kind (steps.cpp). nullopt: go on with the next step.
  Task<std::optional<Finish>> step(const Say& s);
  Task<std::optional<Finish>> step(const Events& s);
  Task<std::optional<Finish>> step(const Reasoning& s);
  Task<std::optional<Finish>> step(const Tool& s);
  Task<std::optional<Finish>> step(const Usage& s);
  Task<std::optional<Finish>> step(const Notice& s);
  Task<std::optional<Finish>> step(const Checkpoint& s);
  Task<std::optional<Finish>> step(const Ask& s);
  Task<std::optional<Finish>> step(const WaitInput& s);
  Task<std::optional<Finish>> step(const Sleep& s);
  Task<std::optional<Finish>> step(const Hang& s);
  Task<std::optional<Finish>> step(const Fail& s);
  Task<std::optional<Finish>> step(const Exec& s);
  Task<std::optional<Finish>> step(const Frame& s);

  plugin::Host& host_;
  plugin_common::runtime::Executor& executor_;
  const plugin::StartParams params_;
  const Script script_;

  // Executor only:
  uint64_t ids_ = 0;  // suffix of generated item/tool/approval ids
  plugin_common::runtime::Wakeup changed_;  // an interrupt, a message, a decision, an exec's end
  std::shared_ptr<plugin_common::runtime::Child> exec_child_;
  std::optional<ExecResult> exec_result_;

  // Shared with the control context:
  mutable std::mutex mutex_;
  std::atomic<bool> interrupted_{false};  // also read without the mutex between steps
  std::string reason_;
  std::deque<std::string> messages_;
  std::string pending_approval_;  // the id an "ask" waits for; empty when none
  std::optional<bool> decision_;  // the answer to pending_approval_

  std::atomic<bool> finishing_{false};
  std::promise<void> finished_promise_;
  std::shared_future<void> finished_ = finished_promise_.get_future().share();
};

}  // namespace agentry::mock
