// One attempt of the claude backend: the claude process, a worker thread that reads its
// output and writes its input, and the Conversation that decides what both mean.
//
// The control-context methods only change state under the mutex and wake the worker
// (obligation 4); every event is emitted by the worker, in order.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "agentry/plugin/cpp/host.hpp"
#include "agentry/plugin_common/child_process.hpp"
#include "agentry/plugin_common/line_splitter.hpp"
#include "config.hpp"
#include "conversation.hpp"

namespace agentry::claude {

class ClaudeProcess;

class Attempt {
 public:
  // Queues the opening lines and starts the worker, which spawns claude. Throws
  // std::system_error when the thread cannot start (nothing was emitted then).
  Attempt(agentry::plugin::Host& host, LaunchSpec spec);
  ~Attempt();  // stop(), then join
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
  // Teardown: denies what waits, kills the process group, joins the worker. Idempotent.
  void stop() noexcept;

 private:
  using Clock = std::chrono::steady_clock;

  static constexpr std::size_t kMaxLineBytes = 64u << 20;  // one stdout line (a big tool result)
  static constexpr std::size_t kStderrLineBytes = 8 * 1024;

  // The worker's own bookkeeping for one process (worker thread only).
  struct Supervision {
    Clock::time_point started = Clock::now();
    std::optional<Clock::time_point> stdin_closed_at, term_sent_at, exited_at;
    bool timeout_fired = false, killed = false, forced_after_interrupt = false;
    agentry::plugin_common::LineSplitter out_lines{kMaxLineBytes, agentry::plugin_common::LineSplitter::Overflow::truncate};
    agentry::plugin_common::LineSplitter err_lines{kStderrLineBytes,
                                                   agentry::plugin_common::LineSplitter::Overflow::truncate};
    std::string stderr_tail;  // the last few KiB, quoted when Claude dies mid-turn
  };

  void work() noexcept;
  void run_process();
  // Timeout, interrupt grace, exit after EOF: signals as due. True: loop again at once.
  bool enforce_deadlines(ClaudeProcess& process, Supervision& s, bool stop, Clock::time_point now);
  // Writes what is queued without blocking; closes stdin once asked to. True: bytes remain.
  bool flush_stdin(ClaudeProcess& process, Supervision& s, bool stop, Clock::time_point now);
  // One poll() over the pipes and the wake-up pipe, then the reads it allows.
  void wait_and_read(ClaudeProcess& process, Supervision& s, bool want_write);
  void apply(Step step);  // under mutex_
  void wake() noexcept;
  void emit(const Event& event) noexcept;
  void finish(const Outcome& outcome, const std::optional<agentry::plugin_common::WaitStatus>& status) noexcept;

  agentry::plugin::Host& host_;
  const LaunchSpec spec_;
  std::atomic<bool> running_{true};
  agentry::plugin_common::Pipe wake_;

  std::mutex mutex_;  // guards everything below
  Conversation conversation_;
  std::deque<Event> outbox_;
  std::string stdin_buffer_;
  bool close_stdin_ = false;
  bool stop_requested_ = false;
  std::optional<Clock::time_point> interrupted_at_;

  std::thread worker_;  // last: started once everything above exists
};

}  // namespace agentry::claude
