#include "engine/leases/run_leases.hpp"

#include "core/run.hpp"
#include "engine/controllers.hpp"
#include "store/lease_repository.hpp"
#include "store/transaction.hpp"

#include <algorithm>
#include <atomic>

namespace agentry::engine {
namespace {

std::atomic<std::int64_t> ttl_ms{10000};

}  // namespace

LeaseTimes LeaseTimes::from_ttl(std::chrono::milliseconds ttl) {
  using std::chrono::milliseconds;
  const auto at_least_1ms = [](milliseconds m) { return std::max(m, milliseconds(1)); };
  return LeaseTimes{at_least_1ms(ttl * 7 / 10), at_least_1ms(ttl / 5), at_least_1ms(ttl / 10)};
}

void set_lease_ttl(std::chrono::milliseconds ttl) { ttl_ms.store(ttl.count()); }

LeaseTimes lease_times() { return LeaseTimes::from_ttl(std::chrono::milliseconds(ttl_ms.load())); }

std::int64_t take_run_lease(store::Transaction& c, const std::string& run_id, const std::string& controller_id) {
  return c.leases().acquire(run_id, controller_id, lease_times().validity.count());
}

bool lease_holder_gone(const store::RunLease& lease) {
  if (lease.expired) return true;
  return member_on_this_host(lease.owner) && !controller_alive_elsewhere(lease.owner);
}

std::optional<store::RunLease> controller_lease(store::Transaction& c, const core::Run& run) {
  auto lease = c.leases().get(run.id);
  if (lease && lease->held && !run.controller_id.empty() && lease->owner == run.controller_id) return lease;
  return std::nullopt;
}

bool driven_elsewhere(const store::DrivenRun& run, const std::string& self, bool shared_store) {
  if (run.controller_id.empty() || run.controller_id == self) return false;
  if (shared_store && run.lease && run.lease->held && run.lease->owner == run.controller_id)
    return !lease_holder_gone(*run.lease);
  return controller_alive_elsewhere(run.controller_id);
}

bool driven_elsewhere(store::Transaction& c, const core::Run& run, const std::string& self, bool shared_store) {
  return driven_elsewhere(store::DrivenRun{run.id, run.controller_id, c.leases().get(run.id)}, self, shared_store);
}

}  // namespace agentry::engine
