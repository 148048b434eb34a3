#pragma once
// An import writes whole runs behind every daemon's back, so none may serve the store
// meanwhile. On a shared store (PostgreSQL) that is read off the members' heartbeats; a
// SQLite home is kept to itself by its daemon lock instead (cli/daemon_lock.hpp).

#include "core/result.hpp"
#include "store/store.hpp"

#include <chrono>

namespace agentry::store_import {

/// CONFLICT naming the first member whose heartbeat is younger than `lease_ttl` (it may
/// still be serving), with what to do.
core::Result<void> check_no_member_serves(store::Store& store, std::chrono::milliseconds lease_ttl);

}  // namespace agentry::store_import
