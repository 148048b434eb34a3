// How an attempt that drives a child ends, on its executor. The outcome is often known
// before the child has gone (the turn answered, a request refused), but FINISHED is the
// last event and carries the exit code: so the conclusion is kept until the exit while the
// child is asked to leave. An interrupt the child does not honour within its grace is
// concluded anyway and the child killed. The protocols stay in the backends; what differs
// between them here is only how the messages name the child (Terms).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/steady_timer.hpp>

#include "agentry/plugin_common/child_process.hpp"
#include "agentry/plugin_common/runtime/child.hpp"
#include "agentry/plugin_common/runtime/event_sink.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "agentry/plugin_common/runtime/follow_ups.hpp"

namespace agentry::plugin_common::runtime {

class AttemptEnding {
 public:
  // How the messages name the child and how long it may take to leave.
  struct Terms {
    std::string child;        // "pi": "pi exited with code 1 ..."
    std::string work;         // "its prompt ended": "... before its prompt ended"
    std::string stderr_name;  // "stderr": "...; stderr: <its last lines>"
    // stdin closed after the conclusion -> terminate(exit_grace) once it has passed.
    std::chrono::milliseconds exit_grace{3000};
  };
  // Where the FINISHED goes instead of `events` (a question's answer, say); called once.
  using Delivery =
      std::function<void(const std::string& outcome, const std::string& message, std::optional<int> exit_code)>;

  // `child` is the owner's own pointer, read whenever it is needed: null before the spawn,
  // another one per turn where each turn is a process.
  AttemptEnding(Executor& executor, EventSink& events, FollowUps& follow_ups, const std::shared_ptr<Child>& child,
                Terms terms, Delivery delivery = {});
  AttemptEnding(const AttemptEnding&) = delete;
  AttemptEnding& operator=(const AttemptEnding&) = delete;

  // [thread-safe] True until FINISHED is on its way to the host.
  bool running() const noexcept { return running_.load(); }

  // [executor] The outcome is decided, once: no follow-up is taken any more, and FINISHED
  // carries it when the child has exited (wind_down) or at once without a child.
  void conclude(std::string outcome, std::string message);
  bool concluded() const noexcept { return conclusion_.has_value(); }
  // [executor] The child was asked to stop: unless something concludes within `grace`,
  // the attempt concludes "interrupted" with `message` and the child is killed.
  void expect_stop_within(std::chrono::milliseconds grace, std::string message);
  // [executor] The child's exit: FINISHED with the conclusion, or, without one, with
  // early_exit() as the error ("interrupted" when the attempt was interrupted).
  void exited(WaitStatus status, bool interrupted);
  // "<child> exited with code 1 before <work>; <stderr_name>: <its stderr tail>".
  std::string early_exit(WaitStatus status) const;
  // [executor] FINISHED now, once; the follow-ups close with it, so a message sent after
  // it is refused and the host keeps it.
  void finish(const std::string& outcome, const std::string& message, std::optional<int> exit_code) noexcept;
  bool finished() const noexcept { return finished_; }
  // [executor] Teardown: FINISHED (interrupted) unless sent, no handler of the child runs
  // again, and it is killed.
  void abandon() noexcept;

 private:
  struct Conclusion {
    std::string outcome, message;
  };

  EventSink& events_;
  FollowUps& follow_ups_;
  const std::shared_ptr<Child>& child_;
  const Terms terms_;
  const Delivery delivery_;
  std::atomic<bool> running_{true};

  // Executor only:
  boost::asio::steady_timer grace_timer_;  // the interrupt's grace, then the exit's
  std::optional<Conclusion> conclusion_;
  bool finished_ = false;
  // The grace timer's handler may already be queued when the owner goes away.
  std::shared_ptr<const bool> alive_ = std::make_shared<const bool>(true);
};

}  // namespace agentry::plugin_common::runtime
