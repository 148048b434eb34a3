#pragma once
// The runs this process is driving right now, by run id: one LiveRun per live session.
// When a session ends and the store opened a new one to deliver queued messages, the
// next LiveRun takes the old one's place here in one step.

#include "engine/live/live_run.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentry::engine {

class LiveRuns {
 public:
  LiveRuns(LiveRunServices services, std::string controller_id);

  /// Starts driving the session `run` just opened (its latest attempt) with `prompt`.
  void launch(const core::Run& run, const std::string& prompt);
  /// Takes over the open session and attempt of `run`, which a gone controller left
  /// running, through the backend's ext/detach.h adopt(): `prompt` is what the attempt
  /// was to say, `checkpoint` its last checkpoint payload (or null).
  void adopt(const core::Run& run, const std::string& prompt, const boost::json::value& checkpoint,
             const std::string& previous_controller_id);
  /// True when `backend` can leave its agent working at shutdown and take it over later.
  bool can_adopt(const std::string& backend) const;
  std::shared_ptr<LiveRun> find(const std::string& run_id) const;
  /// The user stops the run: interrupts its live session, and any session that takes
  /// over from it (queued messages delivered meanwhile), without waiting for either.
  /// False when the run has no live session here.
  bool abort(const std::string& run_id, const std::string& reason);
  std::size_t count() const;
  /// Every live run now.
  std::vector<std::shared_ptr<LiveRun>> all() const;
  const std::string& controller_id() const { return controller_id_; }
  /// Interrupts every live run (as aborted, with `reason`) and waits for them to end.
  /// From then on nothing new starts: a session opened meanwhile is stopped at once.
  /// With StopCause::daemon_exit, runs whose agent can work on without us are detached.
  void stop_all(const std::string& reason, std::chrono::milliseconds wait, StopCause cause = StopCause::shutdown);
  /// The daemon's URL, given to agents as AGENTRY_CONNECT so they can call back.
  void set_connect_url(std::string url);
  /// The daemon's Unix socket (an absolute path; empty: none), which an environment can
  /// mount for an agent without a network. Set once, before any run is launched.
  void set_daemon_socket(const std::string& path);
  const std::string& daemon_socket() const { return daemon_socket_; }

 private:
  LaunchSpec spec_for(const core::Run& run, const std::string& prompt) const;
  void launch(LaunchSpec spec);
  /// Creates and registers the LiveRun for a session; the caller holds mutex_ and
  /// launches it after unlocking. Returns the shutdown reason when stopping.
  std::shared_ptr<LiveRun> register_locked(LaunchSpec spec, std::string& stop_reason);
  static void start(const std::shared_ptr<LiveRun>& live, const std::string& stop_reason, StopCause cause);
  void finished(LiveRun& run, std::optional<NextSession> next);

  LiveRunServices services_;
  std::string controller_id_;
  std::shared_ptr<std::atomic<bool>> stopping_ = std::make_shared<std::atomic<bool>>(false);
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<LiveRun>> runs_;
  std::string connect_url_;
  std::string daemon_socket_;
  std::string stop_reason_;
  std::map<std::string, std::string> aborting_;  // run id -> reason, until its live sessions end
};

}  // namespace agentry::engine
