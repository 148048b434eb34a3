#pragma once
// An init, start or re-initialization split in two: planning (Engine::plan_init,
// plan_reinit) resolves the definitions and does every check that needs no program, and
// says whether finishing will run module prepare hooks (node processes: blocking);
// finishing (Engine::finish_init, finish_start, finish_reinit) runs them, renders what
// they changed and writes the run once. A request handler finishes on its blocking
// workers only when hooks must run (OperationResult::blocking), in place otherwise.

#include "core/run.hpp"
#include "core/schedule.hpp"
#include "engine/requests.hpp"
#include "engine/run_inputs.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <optional>
#include <string>

namespace agentry::store {
struct FrozenText;
}

namespace agentry::engine {

struct PendingInit {
  InitRequest request;
  Actor actor;
  /// Set for a re-initialization: the run it re-initializes.
  std::optional<std::string> reinit_of;
  /// The run as it will be written (a new run; for a re-initialization, the fields
  /// module hooks are told: id, group, status).
  core::Run run;
  /// `run`'s frozen inputs as the store keeps them, encoded once the run is filled in
  /// for its write: by the thread finishing the init, not by the store's one writer.
  std::shared_ptr<const store::FrozenText> frozen_text;
  /// The parent's vars and their sources, which `context` points at: kept here, so a
  /// PendingInit is not copied or moved once planned (callers hold it by shared_ptr).
  boost::json::object parent_vars;
  boost::json::object parent_var_sources;
  RunInputContext context;
  ResolvedRunInputs inputs;
  std::optional<core::ScheduleSpec> schedule;  // the assignment's, applied by init

  /// Finishing runs module prepare hooks (engine/hooks/prepare_at_init.hpp).
  bool runs_prepare_hooks() const;

  PendingInit() = default;
  PendingInit(const PendingInit&) = delete;
  PendingInit& operator=(const PendingInit&) = delete;
};

}  // namespace agentry::engine
