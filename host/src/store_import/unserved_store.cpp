#include "store_import/unserved_store.hpp"

#include "store/daemon_repository.hpp"
#include "store/transaction.hpp"

#include <vector>

namespace agentry::store_import {

core::Result<void> check_no_member_serves(store::Store& store, std::chrono::milliseconds lease_ttl) {
  auto members = store.read([](store::Transaction& t) -> core::Result<std::vector<store::DaemonMember>> {
    return t.daemons().list();
  });
  if (!members) return members.failure();
  for (const auto& m : *members)
    if (m.heartbeat_age_ms <= lease_ttl.count())
      return core::fail(core::ErrorCode::conflict,
                        "daemon " + m.name + " (" + m.host + ", pid " + std::to_string(m.pid) + ") serves " +
                            store.describe() + ": stop every daemon of this store before importing",
                        {{"daemonId", m.id}});
  return core::ok();
}

}  // namespace agentry::store_import
