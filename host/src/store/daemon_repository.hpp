#pragma once
// The members: every daemon serving the store registers itself and renews a heartbeat
// (engine/membership/). On SQLite that is the one daemon of a home; on PostgreSQL, every
// daemon on the database. Heartbeats are stamped with the database's clock, and ages
// read with it too, so members on machines whose clocks disagree still agree on who
// is silent.

#include "core/daemon_member.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace agentry::store {

using core::DaemonMember;

class DaemonRepository {
 public:
  virtual ~DaemonRepository() = default;

  /// Registers the member, or renews it: every field, the heartbeat set to now.
  virtual void upsert(const DaemonMember& member) = 0;
  /// Every member, by name, then id.
  virtual std::vector<DaemonMember> list() = 0;
  virtual bool remove(std::string_view id) = 0;
  /// Forgets the members silent for longer than `age_ms`; how many there were.
  virtual int remove_silent(std::int64_t age_ms) = 0;
};

}  // namespace agentry::store
