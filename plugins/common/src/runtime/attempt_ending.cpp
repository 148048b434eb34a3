#include "agentry/plugin_common/runtime/attempt_ending.hpp"

#include <utility>

namespace agentry::plugin_common::runtime {

AttemptEnding::AttemptEnding(Executor& executor, EventSink& events, FollowUps& follow_ups,
                             const std::shared_ptr<Child>& child, Terms terms, Delivery delivery)
    : events_(events),
      follow_ups_(follow_ups),
      child_(child),
      terms_(std::move(terms)),
      delivery_(std::move(delivery)),
      grace_timer_(executor.get_executor()) {}

void AttemptEnding::conclude(std::string outcome, std::string message) {
  if (conclusion_ || finished_) return;
  follow_ups_.close();
  grace_timer_.cancel();
  conclusion_ = Conclusion{std::move(outcome), std::move(message)};
  if (!child_) return finish(conclusion_->outcome, conclusion_->message, std::nullopt);
  wind_down(child_, grace_timer_, terms_.exit_grace);
}

void AttemptEnding::expect_stop_within(std::chrono::milliseconds grace, std::string message) {
  grace_timer_.expires_after(grace);
  grace_timer_.async_wait([this, alive = std::weak_ptr<const bool>(alive_),
                           message = std::move(message)](boost::system::error_code ec) mutable {
    // A cancel() comes too late for a handler already queued: the conclusion tells.
    if (ec || alive.expired() || conclusion_) return;
    conclude("interrupted", std::move(message));
    if (child_) child_->kill();
  });
}

void AttemptEnding::exited(WaitStatus status, bool interrupted) {
  if (conclusion_) return finish(conclusion_->outcome, conclusion_->message, status.exit_code);
  finish(interrupted ? "interrupted" : "error", early_exit(status), status.exit_code);
}

std::string AttemptEnding::early_exit(WaitStatus status) const {
  std::string why = status.signal ? terms_.child + " was killed by signal " + std::to_string(*status.signal)
                                  : terms_.child + " exited with code " + std::to_string(status.exit_code.value_or(-1));
  why += " before " + terms_.work;
  if (child_ && !child_->stderr_tail().empty()) why += "; " + terms_.stderr_name + ": " + child_->stderr_tail();
  return why;
}

void AttemptEnding::finish(const std::string& outcome, const std::string& message,
                           std::optional<int> exit_code) noexcept {
  if (finished_) return;
  finished_ = true;
  follow_ups_.close();
  running_ = false;  // the host may start() again as soon as it has FINISHED
  if (delivery_) return delivery_(outcome, message, exit_code);
  events_.finish(outcome, message, exit_code);
}

void AttemptEnding::abandon() noexcept {
  finish("interrupted", "the backend instance was destroyed", std::nullopt);
  grace_timer_.cancel();
  if (child_) {
    child_->forget_handlers();
    child_->kill();
  }
}

}  // namespace agentry::plugin_common::runtime
