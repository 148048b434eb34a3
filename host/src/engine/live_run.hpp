#pragma once
// One attempt of a run on a live backend, from launch to the terminal event.
//
// All control calls into the backend happen on the run's strand. Events arrive on
// plugin threads, go into a bounded queue (full -> the plugin sees BUSY), and a pump on
// the strand writes them in batches through the write queue; only after that commit
// are subscribers told. The attempt ends at the backend's terminal event, or is ended
// by the host when the backend fails to start or ignores an interrupt.

#include "core/executor.hpp"
#include "core/run.hpp"
#include "engine/attempt_events.hpp"
#include "plugins/backend_session.hpp"

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace agentry::events {
class EventBus;
}
namespace agentry::plugins {
class PluginRegistry;
}
namespace agentry::store {
class Database;
}

namespace agentry::engine {

struct LiveRunServices {
  store::Database& db;
  const plugins::PluginRegistry& plugins;
  core::ThreadPool& pool;
  events::EventBus& bus;
  /// How long a backend has to end an attempt after interrupt() (plugin obligation 8).
  std::chrono::milliseconds interrupt_grace{10000};
};

struct LaunchSpec {
  core::Run run;  // as committed when the session opened
  int attempt_number = 1;
  int session_index = 0;
  std::string prompt;
  std::vector<std::string> env;  // extra "KEY=VALUE" for the agent
};

class LiveRun : public plugins::BackendEventSink, public std::enable_shared_from_this<LiveRun> {
 public:
  static constexpr std::size_t queue_limit = 4096;

  LiveRun(LiveRunServices services, LaunchSpec spec, std::function<void(const std::string&)> on_finished);
  ~LiveRun() override;

  const std::string& run_id() const { return attempt_.run_id; }
  /// Creates the backend instance and starts the attempt (on the strand).
  void launch();
  /// Asks the backend to stop; `abort` marks it the user's decision. Ends the attempt
  /// by force if no terminal event arrives within the grace period.
  void interrupt(const std::string& reason, bool abort);
  /// Blocks until the attempt has ended, or `timeout` passes. True when it ended.
  bool wait_finished(std::chrono::milliseconds timeout);

  // BackendEventSink
  bool offer(plugins::BackendEvent event) override;
  void on_log(int severity, std::string message, int policy) override;
  void on_callback_requested() override;

 private:
  void pump();
  void end_by_host(std::string outcome, std::string message);
  void write_batch(std::vector<plugins::BackendEvent> batch, std::optional<ForcedEnd> forced);
  void mark_finished();

  LiveRunServices services_;
  LaunchSpec spec_;
  AttemptContext attempt_;
  core::Strand strand_;
  std::function<void(const std::string&)> on_finished_;
  std::unique_ptr<plugins::BackendSession> session_;  // touched on the strand only
  core::TimerHandle timeout_timer_;
  core::TimerHandle grace_timer_;

  std::mutex mutex_;
  std::condition_variable finished_cv_;
  std::deque<plugins::BackendEvent> queue_;
  bool pump_scheduled_ = false;
  bool finished_ = false;
  bool interrupting_ = false;
};

}  // namespace agentry::engine
