// Engine: startup reconciliation. A run persisted as running was being driven by a
// controller (a daemon or an embedded CLI process). If that process is gone, nobody
// will ever finish the run, so it becomes `error` with an audit record saying why.
// Passive runs have no controller and stay running.

#include "engine/engine.hpp"

#include "core/log.hpp"
#include "engine/controllers.hpp"
#include "engine/mutation_support.hpp"

namespace agentry::engine {

core::Result<int> Engine::reconcile_after_restart() {
  auto ids = db_.read([&](store::Connection& c) -> core::Result<std::vector<std::string>> {
    return store::RunRepository::ids_with_status(c, core::RunStatus::running);
  });
  if (!ids) return ids.failure();
  int finalized = 0;
  const Actor daemon{"daemon"};
  for (const auto& id : *ids) {
    auto decided = db_.write<bool>([&](store::Connection& c) -> core::Result<bool> {
      auto run = detail::load_run(c, id);
      if (!run || run->status != core::RunStatus::running) return false;
      if (run->frozen.backend == core::passive_backend) return false;
      boost::json::object data{{"backend", run->frozen.backend},
                               {"controllerId", run->controller_id},
                               {"backendSessionId", run->backend_session_id ? boost::json::value(*run->backend_session_id)
                                                                            : boost::json::value(nullptr)}};
      if (run->controller_id != config_.controller_id && controller_alive_elsewhere(run->controller_id)) {
        data["decision"] = "skipped_live_owner";
        data["reason"] = "owner_pid_alive";
        detail::append_audit(c, id, "run.controller_reconciled", daemon, std::move(data));
        return false;
      }
      std::string reason = "the process driving this run (" +
                           (run->controller_id.empty() ? std::string("unknown") : run->controller_id) +
                           ") is gone; agentry restarted while the run was active";
      detail::close_session(c, *run, core::RunStatus::error, reason, "restart");
      data["decision"] = "finalized";
      data["reason"] = "controller_gone";
      data["status"] = "error";
      detail::save_with_audit(c, *run, "run.controller_reconciled", daemon, std::move(data));
      return true;
    });
    if (!decided) return decided.failure();
    if (*decided) {
      ++finalized;
      bus_.run_changed(id);
      core::log_warn("finalized orphaned run", {{"runId", id}, {"status", "error"}});
    }
  }
  return finalized;
}

}  // namespace agentry::engine
