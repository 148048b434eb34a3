#pragma once
// An agent-runner run's hooks as agentry holds them (M11): its `resolvedHooks` frozen as
// agentry hook specs (module hooks by their resolved file, its built-ins in their own
// forms), its `hookState` as the run's hook data and its `hookAudits` as hook audits.
// A hook agentry cannot run here (its module file is gone, a built-in or phase agentry
// does not have) is left out, named in the report and in the run's frozen inputs, and
// the run refuses to be resumed or readied: it would run without a gate it was defined
// with.

#include "store_import/agent_runner/imported_run.hpp"
#include "store_import/agent_runner/manifest_reader.hpp"

namespace agentry::store_import::agent_runner {

void map_hooks(const Manifest& manifest, ImportedRun& out);

}  // namespace agentry::store_import::agent_runner
