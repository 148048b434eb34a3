#pragma once
// Membership: the daemons serving one store. A serving daemon registers itself, renews
// its heartbeat (with its live-run count) four times per lease time, and removes itself
// when it stops; anyone can list the members with a state read off the heartbeat's age
// by the database's clock:
//   alive    heard from within half the lease time,
//   suspect  within the lease time (a missed heartbeat or two: slow, paused, cut off),
//   dead     longer: whatever it held has expired.
// Members dead for a day are forgotten.

#include "core/daemon_member.hpp"
#include "core/executor.hpp"
#include "core/repeating_task.hpp"
#include "core/result.hpp"
#include "engine/controllers.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {
class Store;
}

namespace agentry::engine {

enum class MemberState { alive, suspect, dead };
std::string_view to_string(MemberState state);

struct Member {
  core::DaemonMember record;
  MemberState state = MemberState::alive;
  bool self = false;  ///< the daemon answering
};

class MembershipService {
 public:
  /// `live_runs` counts this daemon's live runs for each heartbeat; `lease_ttl` sets how
  /// often it is renewed and how long a member may be silent (AGENTRY_LEASE_TTL_MS).
  MembershipService(store::Store& db, core::ThreadPool& pool, std::function<std::int64_t()> live_runs,
                    std::chrono::milliseconds lease_ttl);
  ~MembershipService();
  MembershipService(const MembershipService&) = delete;
  MembershipService& operator=(const MembershipService&) = delete;

  /// Registers `self` and renews it every lease time / 4 until stop().
  core::Result<void> start(core::DaemonMember self);
  /// Stops renewing and removes this daemon from the members. Idempotent.
  void stop();

  /// Every member with its state.
  core::Result<std::vector<Member>> list() const;

  /// Whether `daemon_id` is a member on this host or another, as of the last heartbeat
  /// (engine/controllers.hpp: only a member on this host has a pid worth checking).
  MemberHost host_of(const std::string& daemon_id) const;

 private:
  void heartbeat();
  /// Re-reads which members are on which hosts.
  void refresh_member_hosts();

  store::Store& db_;
  core::ThreadPool& pool_;
  std::function<std::int64_t()> live_runs_;
  mutable std::mutex mutex_;
  std::optional<core::DaemonMember> self_;
  const std::chrono::milliseconds lease_ttl_;
  std::unique_ptr<core::RepeatingTask> renewal_;
  std::map<std::string, MemberHost> member_hosts_;  // by member id
};

}  // namespace agentry::engine
