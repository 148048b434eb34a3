#pragma once
// How deeply a run is nested under other runs, from its stored lineage. Agents get it
// as AGENTRY_CALL_DEPTH so that `agentry run` inside a run can refuse runaway nesting
// (docs/cli.md) whichever process drives the run; the engine itself refuses to create
// a run deeper than AGENTRY_MAX_CALL_DEPTH, whoever asks.

#include "core/run.hpp"

#include <optional>
#include <string_view>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine {

/// 1 for a run without a parent, its parent's depth + 1 otherwise. A parent that no
/// longer exists ends the chain; at most `limit` levels are read (a cycle cannot loop).
int lineage_depth(store::Transaction& c, const core::Run& run, int limit = 64);

/// How many runs may nest (a top-level run is 1 deep) unless AGENTRY_MAX_CALL_DEPTH says.
inline constexpr int default_max_call_depth = 8;

}  // namespace agentry::engine
