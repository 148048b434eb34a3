#include "engine/live/live_runs.hpp"

#include "core/log.hpp"
#include "engine/lineage.hpp"
#include "engine/live/run_tokens.hpp"
#include "plugin_host/plugin_registry.hpp"
#include "store/lease_repository.hpp"
#include "store/store.hpp"


#include <algorithm>
#include <cstdlib>

namespace agentry::engine {

LiveRuns::LiveRuns(LiveRunServices services, std::string controller_id)
    : services_(services), controller_id_(std::move(controller_id)) {
  services_.stopping = stopping_;
}

namespace {

/// agent-runner's family, for agents and tools written for it (docs/definitions.md
/// "Coming from agent-runner"). Its PARENT_RUN_ID is this run (the parent of whatever the
/// agent starts), unlike AGENTRY_PARENT_RUN_ID. Its depth counts from 0 at the outermost
/// caller and is the depth the agent's own child would have; a run of agentry's depth D
/// (1 at the top) has agents at D there, and the limit means the same in both counts.
void add_agent_runner_variables(std::vector<std::string>& env, const core::Run& run, int depth, int max_depth) {
  env.push_back("AGENT_RUNNER_RUN_ID=" + run.id);
  env.push_back("AGENT_RUNNER_RUN_GROUP_ID=" + run.run_group_id);
  env.push_back("AGENT_RUNNER_PARENT_RUN_ID=" + run.id);
  env.push_back("AGENT_RUNNER_CWD=" + run.cwd);
  env.push_back("AGENT_RUNNER_CALL_DEPTH=" + std::to_string(depth));
  env.push_back("AGENT_RUNNER_MAX_CALL_DEPTH=" + std::to_string(max_depth));
}

}  // namespace

LaunchSpec LiveRuns::spec_for(const core::Run& run, const std::string& prompt) const {
  LaunchSpec spec;
  spec.run = run;
  spec.attempt_number = run.attempt_count;
  spec.session_index = run.session_count - 1;
  spec.prompt = prompt;
  spec.controller_id = controller_id_;
  spec.env = {"AGENTRY_RUN_ID=" + run.id, "AGENTRY_RUN_GROUP_ID=" + run.run_group_id,
              "AGENTRY_PARENT_RUN_ID=" + run.parent_run_id.value_or("")};
  // A bubblewrap sandbox without a network reaches the daemon through its socket, which
  // the read-only view of the host shows (a container gets its own: container_manager).
  spec.daemon_socket = daemon_socket_;
  const auto& environment = run.frozen.environment;
  if (environment && environment->kind == "bubblewrap" && environment->network != "host" && !daemon_socket_.empty())
    spec.env.push_back("AGENTRY_CONNECT=unix://" + daemon_socket_);
  else if (!connect_url_.empty())
    spec.env.push_back("AGENTRY_CONNECT=" + connect_url_);
  // An agent that types plain `agentry` gets this one, in front of the PATH its
  // definition asked for (backends apply the host's variables last), else the daemon's.
  if (services_.task_prompt && !services_.task_prompt->agentry_binary.empty()) {
    const char* own = std::getenv("PATH");
    std::string path = own ? own : "";
    auto defined = [](const boost::json::object* env) -> const boost::json::value* {
      return env ? env->if_contains("PATH") : nullptr;
    };
    const auto* config_env = run.frozen.backend_config.if_contains("env");
    const auto* launcher_env = run.frozen.launcher ? &run.frozen.launcher->env : nullptr;
    if (auto* p = defined(config_env && config_env->is_object() ? &config_env->as_object() : nullptr); p && p->is_string())
      path = p->as_string();
    else if (auto* l = defined(launcher_env); l && l->is_string())
      path = l->as_string();
    spec.env.push_back("PATH=" + services_.task_prompt->agentry_binary.parent_path().string() +
                       (path.empty() ? "" : ":" + path));
    // agent-runner's command set, by the name its definitions use (docs/agent-runner.md);
    // not in a container, whose agentry is its own `agentry` without the link.
    const bool in_container = environment && environment->kind == "container";
    if (auto link = agent_runner_link(services_.task_prompt->agentry_binary); !link.empty() && !in_container)
      spec.env.push_back("AGENT_RUNNER_CMD=" + link.string());
  }
  if (services_.per_run_tokens) {
    // Never the daemon's own token: one that reaches this run only, revoked at its end.
    if (auto token = issue_run_token(services_.db, run.id)) spec.env.push_back("AGENTRY_DAEMON_TOKEN=" + *token);
    else core::log_error("cannot issue a run token; the agent cannot call back", {{"runId", run.id}});
  }
  struct Read {
    int depth = 1;
    std::int64_t epoch = 0;
  };
  auto read = services_.db.read([&](store::Transaction& c) -> core::Result<Read> {
    Read out{lineage_depth(c, run), 0};
    // The lease the session's opening took (engine/leases/): the epoch its writes show.
    if (auto lease = c.leases().get(run.id); lease && lease->owner == controller_id_) out.epoch = lease->epoch;
    return out;
  });
  const int depth = read ? read->depth : 1;
  spec.env.push_back("AGENTRY_CALL_DEPTH=" + std::to_string(depth));
  if (read) spec.lease_epoch = read->epoch;
  add_agent_runner_variables(spec.env, run, depth, services_.max_call_depth);
  return spec;
}

std::shared_ptr<LiveRun> LiveRuns::register_locked(LaunchSpec spec, std::string& stop_reason) {
  const std::string id = spec.run.id;
  auto live = std::make_shared<LiveRun>(services_, std::move(spec),
                                        [this](LiveRun& ended, std::optional<NextSession> next) {
                                          finished(ended, std::move(next));
                                        });
  runs_[id] = live;
  if (*stopping_) stop_reason = stop_reason_;
  return live;
}

void LiveRuns::start(const std::shared_ptr<LiveRun>& live, const std::string& stop_reason, StopCause cause) {
  live->launch();
  // The session was committed before the shutdown (or the user's abort) began; it is
  // recorded, and ends now.
  if (!stop_reason.empty()) live->interrupt(stop_reason, cause);
}

void LiveRuns::launch(const core::Run& run, const std::string& prompt) { launch(spec_for(run, prompt)); }

void LiveRuns::adopt(const core::Run& run, const std::string& prompt, const boost::json::value& checkpoint,
                     const std::string& previous_controller_id) {
  LaunchSpec spec = spec_for(run, prompt);
  spec.adopt = true;
  spec.adopt_checkpoint = checkpoint;
  spec.previous_controller_id = previous_controller_id;
  launch(std::move(spec));
}

void LiveRuns::launch(LaunchSpec spec) {
  std::shared_ptr<LiveRun> live;
  std::string stop_reason;
  {
    std::lock_guard lock(mutex_);
    live = register_locked(std::move(spec), stop_reason);
  }
  start(live, stop_reason, StopCause::shutdown);
}

bool LiveRuns::can_adopt(const std::string& backend) const { return services_.plugins.can_detach(backend); }

// Called on the ended LiveRun's strand. The successor replaces it under the same lock,
// so stop_all() always finds one of the two: the run is never live yet unlisted. Nothing
// here touches this object after the lock, so it may be destroyed once stop_all() saw
// the successor end.
void LiveRuns::finished(LiveRun& ended, std::optional<NextSession> next) {
  std::shared_ptr<LiveRun> successor;
  std::string stop_reason;
  StopCause cause = StopCause::shutdown;
  // Built before the lock: it may write (a run token).
  std::optional<LaunchSpec> next_spec;
  if (next) next_spec = spec_for(next->run, next->prompt);
  {
    std::lock_guard lock(mutex_);
    auto it = runs_.find(ended.run_id());
    if (it != runs_.end() && it->second.get() == &ended) runs_.erase(it);
    auto aborting = aborting_.find(ended.run_id());
    if (next_spec) {
      successor = register_locked(std::move(*next_spec), stop_reason);
      // The user asked this run to stop while its session was handing off.
      if (stop_reason.empty() && aborting != aborting_.end()) {
        stop_reason = aborting->second;
        cause = StopCause::user_abort;
      }
    } else if (aborting != aborting_.end()) {
      aborting_.erase(aborting);
    }
  }
  if (successor) start(successor, stop_reason, cause);
  else if (services_.slot_freed) services_.slot_freed();
}

bool LiveRuns::abort(const std::string& run_id, const std::string& reason) {
  std::shared_ptr<LiveRun> live;
  {
    std::lock_guard lock(mutex_);
    auto it = runs_.find(run_id);
    if (it == runs_.end()) return false;
    live = it->second;
    aborting_[run_id] = reason;
  }
  live->interrupt(reason, StopCause::user_abort);
  return true;
}

std::shared_ptr<LiveRun> LiveRuns::find(const std::string& run_id) const {
  std::lock_guard lock(mutex_);
  auto it = runs_.find(run_id);
  return it == runs_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<LiveRun>> LiveRuns::all() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<LiveRun>> out;
  out.reserve(runs_.size());
  for (const auto& [id, run] : runs_) out.push_back(run);
  return out;
}

std::size_t LiveRuns::count() const {
  std::lock_guard lock(mutex_);
  return runs_.size();
}

void LiveRuns::set_connect_url(std::string url) {
  std::lock_guard lock(mutex_);
  connect_url_ = std::move(url);
}

void LiveRuns::set_daemon_socket(const std::string& path) { daemon_socket_ = path; }

void LiveRuns::stop_all(const std::string& reason, std::chrono::milliseconds wait, StopCause cause) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  std::map<std::string, std::shared_ptr<LiveRun>> stopped;
  // Rounds: a session that hands off to a queued-message session while we stop it
  // registers its successor, which the next round stops.
  for (;;) {
    std::map<std::string, std::shared_ptr<LiveRun>> runs;
    {
      std::lock_guard lock(mutex_);
      *stopping_ = true;
      stop_reason_ = reason;
      for (const auto& [id, run] : runs_)
        if (!stopped.count(id) || stopped[id] != run) runs.emplace(id, run);
    }
    if (runs.empty()) return;
    for (auto& [id, run] : runs) run->interrupt(reason, cause);
    for (auto& [id, run] : runs) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (!run->wait_finished(std::max(left, std::chrono::milliseconds(0))))
        core::log_warn("run still active at shutdown; it will be reconciled on the next start", {{"runId", id}});
      stopped[id] = run;
    }
    if (std::chrono::steady_clock::now() >= deadline) return;
  }
}

}  // namespace agentry::engine
