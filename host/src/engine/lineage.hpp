#pragma once
// How deeply a run is nested under other runs, from its stored lineage. Agents get it
// as AGENTRY_CALL_DEPTH so that `agentry run` inside a run can refuse runaway nesting
// (docs/cli.md) whichever process drives the run.

#include "core/run.hpp"
#include "store/sqlite.hpp"

namespace agentry::engine {

/// 1 for a run without a parent, its parent's depth + 1 otherwise. A parent that no
/// longer exists ends the chain; at most `limit` levels are read (a cycle cannot loop).
int lineage_depth(store::Connection& c, const core::Run& run, int limit = 64);

}  // namespace agentry::engine
