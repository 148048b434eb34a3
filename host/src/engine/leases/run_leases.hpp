#pragma once
// Run leases as the engine keeps them (store/lease_repository.hpp). Opening a session
// takes the run's lease for this process; ending it lets go. AGENTRY_LEASE_TTL_MS bounds
// how long a silent controller's runs stay untaken: a lease lasts 70% of it past its
// last renewal, renewals come every 20% of it (a member misses three before its lease
// runs out), and the members look for expired leases every 10% of it, so a run is
// taken over at most ttl * (0.7 + 0.1) after its controller fell silent.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace agentry::core {
struct Run;
}
#include "store/lease_repository.hpp"

namespace agentry::store {
class Transaction;
}

namespace agentry::engine {

struct LeaseTimes {
  std::chrono::milliseconds validity;     ///< a lease's life past a renewal
  std::chrono::milliseconds renew_every;  ///< how often the controller renews its leases
  std::chrono::milliseconds sweep_every;  ///< how often members look for expired ones

  static LeaseTimes from_ttl(std::chrono::milliseconds ttl);
};

/// Process-wide, like the controller id: set once by the Engine (AGENTRY_LEASE_TTL_MS).
void set_lease_ttl(std::chrono::milliseconds ttl);
LeaseTimes lease_times();

/// `controller_id` takes the run's lease for the session it opens; the new epoch.
std::int64_t take_run_lease(store::Transaction& c, const std::string& run_id, const std::string& controller_id);

/// Whether the holder of a lease is gone: the lease expired (by the database's clock), or
/// the holder is a member on this host whose process has exited (a daemon restarted on
/// the same machine need not wait out its predecessor's leases).
bool lease_holder_gone(const store::RunLease& lease);

/// The run's lease, when its controller holds it (a run that has none was started before
/// leases, or its session ended).
std::optional<store::RunLease> controller_lease(store::Transaction& c, const core::Run& run);

/// Whether a controller other than `self` drives the running `run` now. On a store
/// several machines share, for a run its controller holds the lease of: while that
/// holder is not gone. Otherwise: while its process lives (engine/controllers.hpp).
bool driven_elsewhere(store::Transaction& c, const core::Run& run, const std::string& self, bool shared_store);
/// The same, for a run as the sweep lists it (LeaseRepository::driven_runs).
bool driven_elsewhere(const store::DrivenRun& run, const std::string& self, bool shared_store);

}  // namespace agentry::engine
