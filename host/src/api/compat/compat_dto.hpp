#pragma once
// agent-runner's wire DTOs from our native JSON: one include for the whole translation
// layer (docs/design/agent-runner-compat.md §4.2). Each part lives in its own file:
//   compat_run_dto.hpp      RunSummary, RunDetail and their parts (W1-W29)
//   compat_results.hpp      mutation results and DaemonInfo (A1-A4, W30)
//   compat_audit.hpp        RunAuditEvent / Envelope / History (W37)
//   compat_workspace.hpp    workspace directory, search, file, diff (W31, W32)
//   compat_definitions.hpp  DefinitionListResult / DefinitionDetail (W33, W34)
// Every function is pure: native JSON (and CompatFacts) in, their JSON out.

#include "api/compat/compat_audit.hpp"
#include "api/compat/compat_definitions.hpp"
#include "api/compat/compat_facts.hpp"
#include "api/compat/compat_results.hpp"
#include "api/compat/compat_run_dto.hpp"
#include "api/compat/compat_workspace.hpp"
