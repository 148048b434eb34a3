// One attempt of the claude backend: the claude process on the instance's executor, and
// the Conversation that decides what its output and the host's commands mean.
//
// The control-context methods change the Conversation under the mutex and queue the Step
// it returns; the executor carries out the queued Steps in that same order, so stdin
// lines and events never overtake each other. Every event is emitted on the executor.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/steady_timer.hpp>

#include "agentry/plugin/cpp/host.hpp"
#include "agentry/plugin_common/runtime/child.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "config.hpp"
#include "conversation.hpp"

namespace agentry::claude {

class Attempt : public std::enable_shared_from_this<Attempt> {
 public:
  // Queues the opening lines and starts claude on the executor.
  static std::shared_ptr<Attempt> start(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor,
                                        LaunchSpec spec);
  Attempt(const Attempt&) = delete;
  Attempt& operator=(const Attempt&) = delete;

  // True until FINISHED is on its way to the host.
  bool running() const noexcept { return running_.load(); }

  // [control] A follow-up message: AGENTRY_ERR_INVALID_STATE when no turn runs any more.
  agentry_status_t send_message(std::string_view text);
  // [control] An approval answer: AGENTRY_ERR_NOT_FOUND for an unknown approvalId.
  agentry_status_t answer_approval(std::string_view approval_id, bool approve);
  // [control] Interrupt; the process group is terminated after the grace period.
  void interrupt(std::string_view reason);
  // [executor] Teardown: FINISHED (interrupted) unless sent, the process group killed, no handler runs again.
  void abandon() noexcept;

 private:
  static constexpr std::size_t kMaxLineBytes = 64u << 20;  // one stdout line (a big tool result)

  Attempt(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor, LaunchSpec spec);
  void begin();
  void queue(Step step);  // under mutex_
  void drain();           // [executor] carries out the queued steps
  void arm_interrupt_grace();
  void on_exit(plugin_common::WaitStatus status);
  void emit(const Event& event) noexcept;
  void finish(const Outcome& outcome, const std::optional<plugin_common::WaitStatus>& status) noexcept;

  agentry::plugin::Host& host_;
  plugin_common::runtime::Executor& executor_;
  const LaunchSpec spec_;
  std::atomic<bool> running_{true};

  // Executor only:
  std::shared_ptr<plugin_common::runtime::Child> child_;
  boost::asio::steady_timer timeout_timer_, interrupt_timer_, exit_timer_;
  bool stdin_closed_ = false, grace_armed_ = false, forced_after_interrupt_ = false, finished_ = false;

  std::mutex mutex_;  // guards the conversation and the steps it produced
  Conversation conversation_;
  std::deque<Step> steps_;
};

}  // namespace agentry::claude
