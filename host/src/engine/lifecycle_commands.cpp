// Engine: lifecycle transitions (ready, resume, abort, archive, unarchive, reset,
// delete). Reconfigure lives with init in run_factory.cpp: both resolve definitions.

#include "engine/engine.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "engine/mutation_support.hpp"
#include "engine/run_snapshot.hpp"
#include "store/event_repository.hpp"
#include "store/session_repository.hpp"
#include "store/task_repository.hpp"

namespace agentry::engine {
using core::Operation;
using core::Run;

Engine::Engine(store::Database& db, const BackendCatalog& backends, EngineConfig config)
    : db_(db), backends_(backends), config_(std::move(config)) {}

core::Result<Run> Engine::ready(const std::string& run_id, const Actor& actor) {
  return db_.write<Run>([&](store::Connection& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto allowed = detail::check_allowed(Operation::ready, *run, "ready"); !allowed) return allowed.failure();
    run->status = core::RunStatus::ready;
    detail::save_with_audit(c, *run, "run.ready", actor);
    return run;
  });
}

core::Result<Run> Engine::resume(const std::string& run_id, const ResumeRequest& request, const Actor& actor) {
  return db_.write<Run>([&](store::Connection& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto allowed = detail::check_allowed(Operation::resume, *run, "resume"); !allowed) return allowed.failure();
    if (!backends_.has(run->frozen.backend))
      return core::fail(core::ErrorCode::validation,
                        "backend '" + run->frozen.backend + "' is not available in this agentry; cannot start run " +
                            run_id,
                        {{"runId", run_id}, {"backend", run->frozen.backend}});
    const bool first = run->session_count == 0;
    if (first) save_initial_snapshot(c, *run);
    // The first session receives the brief; later ones the follow-up message.
    std::string prompt = first ? run->frozen.brief : request.message.value_or("");
    if (first && request.message && !request.message->empty()) prompt += "\n\n" + *request.message;
    detail::open_session(c, *run, prompt, config_.controller_id);
    detail::save_with_audit(c, *run, first ? "run.started" : "run.resumed", actor,
                            {{"sessionIndex", run->session_count - 1}, {"backend", run->frozen.backend}});
    // A passive run is settled by task changes, not here: resuming a run whose tasks are
    // all done means more work is coming, and it must not end at once.
    return run;
  });
}

core::Result<Run> Engine::abort(const std::string& run_id, const std::string& reason, const Actor& actor) {
  return db_.write<Run>([&](store::Connection& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto allowed = detail::check_allowed(Operation::abort, *run, "abort"); !allowed) return allowed.failure();
    std::string why = reason.empty() ? "aborted by " + actor.name : reason;
    detail::close_session(c, *run, core::RunStatus::aborted, why);
    detail::save_with_audit(c, *run, "run.aborted", actor, {{"reason", why}});
    return run;
  });
}

core::Result<Run> Engine::archive(const std::string& run_id, const Actor& actor) {
  return db_.write<Run>([&](store::Connection& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto allowed = detail::check_allowed(Operation::archive, *run, "archive"); !allowed) return allowed.failure();
    run->archived = true;
    run->archived_at = core::now_iso8601();
    detail::save_with_audit(c, *run, "run.archived", actor);
    return run;
  });
}

core::Result<Run> Engine::unarchive(const std::string& run_id, const Actor& actor) {
  return db_.write<Run>([&](store::Connection& c) -> core::Result<Run> {
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
  return db_.write<Run>([&](store::Connection& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto allowed = detail::check_allowed(Operation::reset, *run, "reset"); !allowed) return allowed.failure();
    const auto previous = std::string(core::to_string(run->status));
    restore_initial_snapshot(c, *run);
    store::SessionRepository::remove_all(c, run_id);
    store::TimelineRepository::remove_all(c, run_id);
    run->status = core::RunStatus::initialized;
    run->status_reason.clear();
    run->started_at.reset();
    run->finished_at.reset();
    run->controller_id.clear();
    run->session_count = 0;
    run->attempt_count = 0;
    detail::save_with_audit(c, *run, "run.reset", actor, {{"previousStatus", previous}});
    return run;
  });
}

core::Result<void> Engine::remove(const std::string& run_id, const Actor& actor) {
  auto removed = db_.write<bool>([&](store::Connection& c) -> core::Result<bool> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto allowed = detail::check_allowed(Operation::remove, *run, "delete"); !allowed) return allowed.failure();
    return store::RunRepository::remove(c, run_id);
  });
  if (!removed) return removed.failure();
  // The run's audit trail goes with it (cascade), so the deletion is recorded in the log.
  core::log_info("run deleted", {{"runId", run_id}, {"actor", actor.name}});
  return core::ok();
}

}  // namespace agentry::engine
