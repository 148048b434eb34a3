#pragma once
// The state `reset` returns a run to: its frozen inputs, tasks and backend session id
// as they were when the first session started.

#include "core/run.hpp"

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine {

void save_initial_snapshot(store::Transaction& c, const core::Run& run);
/// Restores frozen inputs, backend session id and tasks; leaves the rest to the caller.
/// A run that never started has no snapshot and keeps what it has.
void restore_initial_snapshot(store::Transaction& c, core::Run& run);

}  // namespace agentry::engine
