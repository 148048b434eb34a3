#pragma once
// agent-runner's prepare: a run's module prepare hooks (`name:` / `path:` entries) run
// while it is initialized, before it is first written, and what they change is frozen
// with it. They see the run as it would be written (its inputs rendered with the vars
// the request resolved) and may change its vars (the texts are then rendered again),
// cwd, backend, model, effort, timeout, restrictions, locked fields and first prompt,
// and give it its hook state, note, pin and task patches. A hook that blocks, throws,
// fails or asks for what cannot be applied fails the init: nothing is written.
//
// Blocking: one node process per hook (engine/hooks/module_hook.hpp). API callers run
// it on their blocking workers (OperationResult::blocking); built-in and `run:` prepare
// hooks keep running at the first start (LiveRun::prepare), which skips these.

#include "core/hook.hpp"
#include "core/result.hpp"
#include "core/run.hpp"
#include "engine/backend_catalog.hpp"
#include "engine/run_inputs.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine {

/// Whether the run's frozen hooks include module prepare hooks (runs_at_init).
bool has_prepare_at_init(const core::FrozenInputs& frozen);

/// What the hooks did that is written with the run (record_prepare_at_init).
struct PreparedAtInit {
  std::vector<core::HookAudit> audits;
  boost::json::object state;  // their mutate.state, merged shallowly: the run's first hook data
  std::optional<std::string> note;
  std::optional<bool> pinned;
};

struct PrepareAtInitEnv {
  const RunInputContext& context;
  const BackendCatalog& backends;
  /// The request gave overrides.backendConfig, which is for the agent's backend: a hook
  /// may then not change the backend.
  bool request_backend_config = false;
};

/// Runs the module prepare hooks of `inputs.frozen.hooks` in declaration order on `run`
/// (id, group and status as they will be written; frozen, cwd and repo root are kept in
/// step with `inputs` as the hooks change them), applying their changes to `inputs`.
/// Blocking. VALIDATION_FAILED, details {hookId, source, outcome, reason, field?}, when a
/// hook stops the init.
core::Result<PreparedAtInit> run_prepare_at_init(core::Run& run, ResolvedRunInputs& inputs,
                                                 const PrepareAtInitEnv& env);

/// VALIDATION_FAILED naming the first `requiredAt: prepare` var still without a value:
/// checked once the module prepare hooks ran (or at once, when there are none).
core::Result<void> check_prepared_vars(const core::FrozenInputs& frozen);

/// In the init's (or re-initialization's) write, after the run row: the hooks' audits,
/// and their state as the run's hook data (replacing what it had).
void record_prepare_at_init(store::Transaction& c, const std::string& run_id, const PreparedAtInit& prepared);

}  // namespace agentry::engine
