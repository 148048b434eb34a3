// A run in a container environment: before each attempt its container is made, started
// or found (off the strand: the engine's CLI blocks), what that did is audited, and the
// attempt's agent is started through the exec relay into it (start_config.cpp). When
// the session ends with none to follow, the run stops using it, and a `terminal`-policy
// container nobody else uses is removed.

#include "engine/live/live_run.hpp"

#include "core/ids.hpp"
#include "core/log.hpp"
#include "engine/environment_audit.hpp"
#include "engine/mutation_support.hpp"
#include "events/event_bus.hpp"
#include "store/store.hpp"

#include <boost/json/serialize.hpp>

namespace agentry::engine {

void LiveRun::place_in_container(const std::string& prompt) {
  if (services_.containers == nullptr) {
    end_by_host("error", "this agentry cannot run containers (no container manager)");
    return;
  }
  environments::ContainerRequest request{spec_.run.id, spec_.run.run_group_id, spec_.run.cwd,
                                         &*spec_.run.frozen.environment, {}, spec_.run.frozen.backend};
  request.cancelled = [cancelled = hook_services(true).cancelled] { return cancelled().has_value(); };
  struct Outcome {
    std::optional<core::Result<environments::ContainerPlacement>> placed;
    std::vector<environments::ContainerAction> actions;
  };
  auto outcome = std::make_shared<Outcome>();
  off_strand([containers = services_.containers, request, outcome] { outcome->placed = containers->acquire(request, outcome->actions); },
             [outcome, prompt](LiveRun& self) {
               auto& placed = *outcome->placed;
               if (placed) {
                 environments::ContainerExec exec;
                 exec.relay_binary = self.services_.containers->agentry_binary();
                 exec.container = placed->container;
                 exec.workdir = placed->workdir;
                 exec.marker = self.run_id() + "-a" + std::to_string(self.attempt_.attempt_number) + "-" +
                               core::new_prefixed_id("x");
                 exec.daemon_socket = placed->daemon_socket;
                 outcome->actions.push_back({"environment.exec",
                                             {{"container", exec.container},
                                              {"workdir", exec.workdir},
                                              {"attempt", self.attempt_.attempt_number},
                                              {"marker", exec.marker}}});
                 self.container_exec_ = std::move(exec);
               }
               self.record_container_actions(outcome->actions);
               if (!placed) {
                 // An abort or a shutdown that stopped a long step ends the attempt as
                 // what it was, not as a failure of the environment.
                 if (self.hook_cancel_.reason()) self.end_for_cancelled_hook(placed.error().message);
                 else self.end_by_host("error", placed.error().message);
                 return;
               }
               self.launch_attempt(prompt);
             });
}

void LiveRun::record_container_actions(const std::vector<environments::ContainerAction>& actions) {
  append_environment_audits(services_.db, run_id(), actions, Actor{"agentry"});
  for (const auto& action : actions)
    if (action.type == "environment.failed" || action.type == "environment.step_failed")
      core::log_warn("container environment: " + action.type, {{"runId", run_id()}, {"data", boost::json::serialize(action.data)}});
}

void LiveRun::explain_container_failure(std::shared_ptr<BatchOutcome> outcome,
                                        std::function<void(LiveRun&, std::shared_ptr<BatchOutcome>)> then) {
  const bool failed = outcome->attempt_ended && outcome->attempt_outcome != "success" && !interrupting_;
  if (!container_exec_ || !failed || services_.containers == nullptr) {
    then(*this, std::move(outcome));
    return;
  }
  auto why = std::make_shared<std::optional<std::string>>();
  off_strand(
      [containers = services_.containers, run = spec_.run, why] {
        *why = containers->stopped_under(run.id, run.run_group_id, *run.frozen.environment);
      },
      [outcome, why, then](LiveRun& self) {
        if (*why) {
          const bool session_ended = outcome->session_ended;
          auto written = self.services_.db.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
            auto run = detail::load_run(c, self.run_id());
            if (!run) return false;
            boost::json::object data{{"container", self.container_exec_->container}, {"reason", **why}};
            if (session_ended && !run->status_reason.empty()) {
              run->status_reason = **why + ": " + run->status_reason;
              detail::save_with_audit(c, *run, "environment.container_stopped", Actor{"agentry"}, std::move(data));
            } else {
              detail::append_audit(c, self.run_id(), "environment.container_stopped", Actor{"agentry"}, std::move(data));
            }
            return true;
          });
          if (!written) core::log_error("cannot record the stopped container", {{"runId", self.run_id()}});
          self.services_.bus.run_changed(self.run_id());
        }
        then(self, outcome);
      });
}

void LiveRun::release_container() {
  const auto& environment = spec_.run.frozen.environment;
  if (!container_exec_ || !environment || !environment->container || services_.containers == nullptr) return;
  container_exec_.reset();
  // Removing a container takes the engine a while: on the blocking pool, and nothing
  // after it waits (the run's next start finds it gone or still there, either is fine).
  services_.blocking.post([containers = services_.containers, db = &services_.db, run = spec_.run] {
    std::vector<environments::ContainerAction> actions;
    containers->release(run.id, run.run_group_id, *run.frozen.environment, actions);
    append_environment_audits(*db, run.id, actions, Actor{"agentry"});
  });
}

}  // namespace agentry::engine
