#pragma once
// Whether this process may start a run's session, and why a run waits when it may not
// (core/placement.hpp). Every session that opens anew passes here in its write (a start
// or resume by anyone, a dependency start, a due schedule, a parent resumed by its
// child's completion); a session that follows one of this process's own (queued
// messages, a retry) keeps its place. A run this process cannot take is left `ready`
// with its start recorded (store/run_start_repository.hpp) and its reason, for a member
// that can to claim (start_claims.cpp).

#include "core/placement.hpp"
#include "core/run.hpp"
#include "engine/requests.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {
class Store;
class Transaction;
struct WaitingStart;
}  // namespace agentry::store

namespace agentry::engine {

/// What this process offers (AGENTRY_LABELS, AGENTRY_WORKSPACE_ROOTS, AGENTRY_MAX_LIVE_RUNS).
struct PlacementSettings {
  std::vector<std::string> labels;
  std::vector<std::string> workspace_roots;
  std::int64_t capacity = 0;  ///< 0: no limit
};

class Placement {
 public:
  Placement(PlacementSettings settings, std::string controller_id, std::chrono::milliseconds lease_ttl);

  /// Why this process cannot open a session of `run` now, read in the write that would
  /// (its capacity counts the leases it holds there), or nullopt when it can. A passive
  /// run runs nowhere and fits anywhere.
  std::optional<std::string> why_not_here(store::Transaction& c, const core::Run& run) const;
  /// "waiting for a member: ...": why no member takes it now, from the members' records.
  std::string waiting_reason(store::Transaction& c, const core::Run& run) const;
  /// The same among `members` (live_members()), for many runs at a time.
  std::string waiting_reason(const std::vector<core::MemberOffer>& members, const core::Run& run) const;
  /// What each member heard from within a lease offers (the others are gone).
  std::vector<core::MemberOffer> live_members(store::Transaction& c) const;
  /// Whether another member declares a workspace root holding `cwd` that this process
  /// does not: a start may name a directory that exists only there.
  bool only_elsewhere(store::Store& db, const std::string& cwd) const;
  /// Records `start` and leaves `run` ready, saying why, in the caller's write, with an
  /// audit record and a wake-up for the members.
  void wait_for_member(store::Transaction& c, core::Run& run, const store::WaitingStart& start,
                       const std::string& not_here, const Actor& actor) const;

  const PlacementSettings& settings() const { return settings_; }

 private:
  core::MemberOffer offer_here(store::Transaction& c) const;

  PlacementSettings settings_;
  std::string controller_id_;
  std::chrono::milliseconds lease_ttl_;
};

/// The reasons a waiting run shows start with this.
inline constexpr std::string_view waiting_for_member_prefix = "waiting for a member: ";

}  // namespace agentry::engine
