// Engine: lifecycle transitions (ready, resume, abort, archive, unarchive, reset,
// delete). Reconfigure lives with init in creation_commands.cpp: both resolve definitions.

#include "engine/engine.hpp"
#include "engine/mutate.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "engine/attachment_prompt.hpp"
#include "engine/controllers.hpp"
#include "engine/leases/run_leases.hpp"
#include "engine/dependencies/dependency_checks.hpp"
#include "engine/mutation_support.hpp"
#include "engine/queued_delivery.hpp"
#include "engine/workspace_baseline/workspace_baseline.hpp"
#include "engine/hooks/hook_runner.hpp"
#include "engine/run_inputs.hpp"
#include "engine/run_snapshot.hpp"
#include "store/dependency_repository.hpp"
#include "store/event_repository.hpp"
#include "store/queued_message_repository.hpp"
#include "store/run_token_repository.hpp"
#include "store/session_repository.hpp"
#include "store/parent_notification_repository.hpp"
#include "store/task_repository.hpp"
#include "store/run_repository.hpp"
#include "store/run_start_repository.hpp"
#include "store/store.hpp"

namespace agentry::engine {
using core::Operation;
using core::Run;

core::Result<Run> Engine::ready(const std::string& run_id, const Actor& actor,
                                const std::optional<core::ScheduleSpec>& schedule) {
  if (schedule)
    if (auto ok = schedules_->check(*schedule); !ok) return ok.failure();
  auto promoted = mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto allowed = detail::check_allowed(Operation::ready, *run, "ready"); !allowed) return allowed.failure();
    run->status = core::RunStatus::ready;
    detail::save_with_audit(c, *run, "run.ready", actor);
    if (schedule) schedules_->put(c, *run, *schedule, actor, "ready");
    return run;
  });
  if (promoted && schedule) schedules_->arm(run_id, promoted->schedule);
  return promoted;
}

core::Result<Run> Engine::resume(const std::string& run_id, const ResumeRequest& request, const Actor& actor) {
  return open_next_session(run_id, request, actor, /*automatic=*/false);
}

core::Result<Run> Engine::open_next_session(const std::string& run_id, const ResumeRequest& request,
                                            const Actor& actor, bool automatic) {
  return start_session(run_id, request, actor, automatic, nullptr);
}

core::Result<Run> Engine::start_session(const std::string& run_id, const ResumeRequest& request, const Actor& actor,
                                        bool automatic, const store::WaitingStart* claim) {
  std::string prompt;
  auto resumed = mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    // A start waiting for a member is claimed once (engine/placement/start_claims.cpp); until
    // then nobody else starts the run, lest it start twice.
    auto waiting = claim ? c.run_starts().claim(run_id) : c.run_starts().get(run_id);
    if (claim && !waiting)
      return core::fail(core::ErrorCode::conflict, "run " + run_id + " was claimed by another member",
                        {{"runId", run_id}, {"reason", "claimed_elsewhere"}});
    if (claim && (run->status != core::RunStatus::ready || run->archived)) {
      c.run_starts().remove(run_id);  // aborted, archived or reset meanwhile: nothing to start
      return run;
    }
    if (!claim && waiting)
      return core::fail(core::ErrorCode::conflict,
                        "run " + run_id + " is already waiting to start (" + run->status_reason +
                            "); abort it to cancel that start",
                        {{"runId", run_id}, {"reason", "waiting_for_member"}});
    // The daemon starts a run for its dependencies once: only while it is still ready
    // (not started by hand meanwhile, nor archived) and still waits on something.
    if (automatic && (run->status != core::RunStatus::ready || run->archived ||
                      c.dependencies().list(run_id).empty()))
      return core::fail(core::ErrorCode::conflict, "run " + run_id + " is no longer waiting to start",
                        {{"runId", run_id}, {"reason", "not_waiting"}});
    if (auto allowed = detail::check_allowed(Operation::resume, *run, "resume"); !allowed) return allowed.failure();
    if (auto met = detail::check_dependencies_met(c, *run, run->session_count == 0 ? "start" : "resume"); !met)
      return met.failure();
    if (claim && !backends_.has(run->frozen.backend))  // a member that has it claims it
      return core::fail(core::ErrorCode::conflict, "backend '" + run->frozen.backend + "' is not loaded here",
                        {{"runId", run_id}, {"reason", "not_here"}});
    if (!backends_.has(run->frozen.backend))
      return core::fail(core::ErrorCode::validation,
                        "backend '" + run->frozen.backend + "' is not available in this agentry; cannot start run " +
                            run_id,
                        {{"runId", run_id}, {"backend", run->frozen.backend}});
    const bool first = run->session_count == 0;
    if (auto not_here = placement_.why_not_here(c, *run)) {
      if (!claim) {
        store::WaitingStart start{run_id, request.message, automatic ? "dependencies" : first ? "start" : "resume",
                                  actor.name, automatic, core::now_iso8601()};
        placement_.wait_for_member(c, *run, start, *not_here, actor);
        return run;
      }
      // Still nobody's here: only the reason it shows may have moved on.
      auto reason = placement_.waiting_reason(c, *run);
      if (reason == run->status_reason)
        return core::fail(core::ErrorCode::conflict, "run " + run_id + " does not fit here: " + *not_here,
                          {{"runId", run_id}, {"reason", "not_here"}});
      run->status_reason = std::move(reason);
      detail::touch(*run);
      c.runs().update(*run);
      return run;
    }
    if (claim) c.run_starts().remove(run_id);
    // Accepted by a member that lacked its directory: the repository is known where it runs.
    if (run->repo_root.empty()) {
      std::error_code ec;
      if (std::filesystem::is_directory(run->cwd, ec)) run->repo_root = find_repo_root(run->cwd);
    }
    if (first) save_initial_snapshot(c, *run);
    // The first session receives the brief; later ones the follow-up message. Each is
    // told the tasks as they stand now (engine/task_prompt.hpp).
    std::string section = task_section(c, *run, config_.task_prompt);
    // And the attachments it can read (engine/attachments.hpp), when there are any.
    if (auto files = attachment_prompt_section(c, *run, attachments_.blobs()); !files.empty())
      section = section.empty() ? files : section + "\n" + files;
    prompt = first ? first_session_prompt(run->frozen, section, request.message.value_or(""))
                   : later_session_prompt(section, request.message.value_or(""));
    // Messages still queued (the user aborted the session they waited for) belong to
    // the next session, whichever starts it: they go first, and are cleared with it.
    auto queued = c.queued_messages().list(run_id);
    if (!queued.empty()) {
      auto texts = detail::join_queued_texts(queued);
      prompt = prompt.empty() ? texts : texts + "\n\n" + prompt;
      c.queued_messages().remove_all(run_id);
      run->queued_message_count = 0;
    }
    detail::open_session(c, *run, prompt, config_.controller_id, detail::queued_session_source(queued));
    // A passive run has no attempts, and is settled by task changes, not here: resuming
    // a run whose tasks are all done means more work is coming, so it must not end at once.
    if (run->frozen.backend != core::passive_backend) detail::open_attempt(c, *run);
    boost::json::object data{{"sessionIndex", run->session_count - 1}, {"backend", run->frozen.backend}};
    if (!queued.empty()) data["queuedMessageCount"] = queued.size();
    if (automatic) data["trigger"] = "dependencies";  // the daemon started it: every dependency was met
    if (claim) {
      data["claimedBy"] = config_.controller_id;
      data["waitingSince"] = waiting->since;
      if (waiting->trigger == "child_completion") data["source"] = "child_completion";
    }
    detail::save_with_audit(c, *run, first ? "run.started" : "run.resumed", actor, std::move(data));
    return run;
  });
  if (resumed && resumed->status == core::RunStatus::running && resumed->frozen.backend != core::passive_backend)
    launch_session(*resumed, prompt);
  return resumed;
}

void Engine::launch_session(const Run& run, const std::string& prompt) { live_.launch(run, prompt); }

bool Engine::is_live(const std::string& run_id) const { return live_.find(run_id) != nullptr; }

void Engine::session_ended(const Run& run, int session_index) {
  if (!has_hooks(run, core::HookPhase::after_exit)) return;  // nothing was held
  hook_jobs_.after_session_end(SessionEnd{run.id, session_index, std::string(core::to_string(run.status))});
}

core::Result<Run> Engine::abort(const std::string& run_id, const std::string& reason, const Actor& actor) {
  // Once the abort is accepted, a hook of this run running outside its live session
  // (taskTransition, on a request worker) is killed; one inside it is killed by the live
  // session's interrupt (LiveRun::interrupt).
  const std::string why_default = reason.empty() ? "aborted by " + actor.name : reason;
  if (live_.find(run_id)) {
    // The abort is recorded and handed to the backend; the run ends (as aborted) when its
    // terminal event is recorded, or when the grace period runs out. Nobody waits here:
    // a backend slow to stop must not hold the caller (a request worker).
    std::string why = reason.empty() ? "aborted by " + actor.name : reason;
    auto audited = mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
      auto run = detail::load_run(c, run_id);
      if (!run) return run.failure();
      if (auto allowed = detail::check_allowed(Operation::abort, *run, "abort"); !allowed) return allowed.failure();
      detail::append_audit(c, run_id, "run.abort_requested", actor, {{"reason", why}});
      return run;
    });
    if (!audited) return audited;
    hook_jobs_.cancel_run(run_id, why_default);
    if (live_.abort(run_id, why)) return audited;
    // The session ended between the check and the interrupt: the run is settled, or a
    // queued-message session has not been registered yet; either way the store decides.
  }
  bool forwarded = false;
  bool called_off = false;  // a start waiting for a member: no session to end
  auto aborted = mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    forwarded = called_off = false;
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    // A start waiting for a member is called off: the run never ran on it.
    if (c.run_starts().remove(run_id)) {
      called_off = true;
      std::string why = reason.empty() ? "aborted by " + actor.name : reason;
      run->status = core::RunStatus::aborted;
      run->status_reason = why;
      run->finished_at = core::now_iso8601();
      detail::save_with_audit(c, *run, "run.aborted", actor, {{"reason", why}, {"waitingStart", true}});
      return run;
    }
    if (auto allowed = detail::check_allowed(Operation::abort, *run, "abort"); !allowed) return allowed.failure();
    // Only the process holding the backend can stop the agent; marking the run aborted
    // here would leave that agent working on a run that claims to have stopped.
    if (run->frozen.backend != core::passive_backend &&
        driven_elsewhere(c, *run, config_.controller_id, db_.shared())) {
      if (db_.shared() && controller_lease(c, *run)) {
        // Another member drives it: that member stops the agent (run_requests.cpp).
        std::string why = reason.empty() ? "aborted by " + actor.name : reason;
        detail::append_audit(c, run_id, "run.abort_requested", actor, {{"reason", why}});
        ask_owner(c, run_id, "abort", {{"reason", why}, {"actor", actor.name}});
        forwarded = true;
        return run;
      }
      const bool daemon = run->controller_id.rfind("daemon-", 0) == 0;
      const std::string how =
          daemon ? "abort it through the daemon (agentry --connect <url> abort " + run_id + ")"
                 : "abort it there (Ctrl-C where it is followed, or kill -INT " +
                       std::to_string(controller_pid(run->controller_id)) + ")";
      return core::fail(core::ErrorCode::conflict,
                        "run " + run_id + " is driven by " + describe_controller(run->controller_id) + "; " + how,
                        {{"controllerId", run->controller_id}});
    }
    std::string why = reason.empty() ? "aborted by " + actor.name : reason;
    detail::close_session(c, *run, core::RunStatus::aborted, why, "user");
    detail::save_with_audit(c, *run, "run.aborted", actor, {{"reason", why}});
    return run;
  });
  if (aborted && !forwarded && !called_off) {
    hook_jobs_.cancel_run(run_id, why_default);
    session_ended(*aborted, aborted->session_count - 1);
  }
  return aborted;
}

core::Result<Run> Engine::archive(const std::string& run_id, const Actor& actor) {
  return mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto allowed = detail::check_allowed(Operation::archive, *run, "archive"); !allowed) return allowed.failure();
    run->archived = true;
    run->archived_at = core::now_iso8601();
    c.run_starts().remove(run_id);  // a start waiting for a member is called off with it
    detail::save_with_audit(c, *run, "run.archived", actor);
    return run;
  });
}

core::Result<Run> Engine::unarchive(const std::string& run_id, const Actor& actor) {
  return mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto allowed = detail::check_allowed(Operation::unarchive, *run, "unarchive"); !allowed)
      return allowed.failure();
    run->archived = false;
    run->archived_at.reset();
    detail::save_with_audit(c, *run, "run.unarchived", actor);
    return run;
  });
}

core::Result<Run> Engine::reset(const std::string& run_id, const Actor& actor) {
  return mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto allowed = detail::check_allowed(Operation::reset, *run, "reset"); !allowed) return allowed.failure();
    const auto previous = std::string(core::to_string(run->status));
    restore_initial_snapshot(c, *run);
    c.sessions().remove_all(run_id);
    c.timeline().remove_all(run_id);
    c.after_commit([this, run_id] { bus_.timeline().reset(run_id); });
    c.run_starts().remove(run_id);  // so was a start waiting for a member
    // Queued messages were meant for a session of the run being undone.
    const int dropped = c.queued_messages().remove_all(run_id);
    run->queued_message_count = 0;
    // So were its parent-completion notifications (session indexes start again at 0).
    c.parent_notifications().remove_all(run_id);
    run->status = core::RunStatus::initialized;
    run->status_reason.clear();
    run->started_at.reset();
    run->finished_at.reset();
    run->controller_id.clear();
    run->session_count = 0;
    run->attempt_count = 0;
    detail::save_with_audit(c, *run, "run.reset", actor,
                            {{"previousStatus", previous}, {"droppedQueuedMessages", dropped}});
    return run;
  });
}

core::Result<void> Engine::remove(const std::string& run_id, const Actor& actor) {
  std::string cwd;
  std::optional<boost::json::object> worktree;
  std::optional<core::Run> removed_run;
  bool last_of_group = false;
  auto removed = db_.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto allowed = detail::check_allowed(Operation::remove, *run, "delete"); !allowed) return allowed.failure();
    cwd = run->cwd;
    worktree = run_worktree(c, run_id);
    removed_run = *run;
    if (run->frozen.environment && run->frozen.environment->container) {
      core::RunQuery group{core::RunQuery::Scope::group, run->run_group_id, true, 2, std::nullopt};
      last_of_group = c.runs().list(group).runs.size() <= 1;
    }
    c.after_commit([this, run_id] {
      bus_.timeline().reset(run_id);
      bus_.browser().forget(run_id);
    });
    return c.runs().remove(run_id);
  });
  if (!removed) return removed.failure();
  bus_.run_changed(run_id);
  bus_.notify(events::Channel::browser, run_id);  // a live view stream closes
  forget_workspace_baseline(blocking_, cwd, run_id, std::move(worktree));
  // A managed container goes with its run (a group's with its last run), whatever its policy;
  // the engine's CLI takes a while, so not on this thread.
  if (removed_run && removed_run->frozen.environment && removed_run->frozen.environment->container)
    blocking_.post([containers = containers_, run = std::move(*removed_run), last_of_group] {
      std::vector<environments::ContainerAction> actions;
      containers->run_deleted(run.id, run.run_group_id, *run.frozen.environment, last_of_group, actions);
      for (const auto& action : actions)
        core::log_info("container of a deleted run: " + action.type, {{"runId", run.id}});
    });
  // The run's audit trail goes with it (cascade), so the deletion is recorded in the log.
  core::log_info("run deleted", {{"runId", run_id}, {"actor", actor.name}});
  return core::ok();
}

}  // namespace agentry::engine
