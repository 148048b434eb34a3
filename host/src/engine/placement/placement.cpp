#include "engine/placement/placement.hpp"

#include "engine/mutation_support.hpp"
#include "store/daemon_repository.hpp"
#include "store/lease_repository.hpp"
#include "store/run_start_repository.hpp"
#include "store/store.hpp"
#include "store/transaction.hpp"

namespace agentry::engine {
namespace {

core::PlacementNeeds needs_of(const core::Run& run) { return {run.frozen.placement_labels, run.cwd}; }

core::MemberOffer offer_of(const core::DaemonMember& m) {
  return {m.name, m.labels, m.workspace_roots, m.capacity, m.live_runs};
}

}  // namespace

Placement::Placement(PlacementSettings settings, std::string controller_id, std::chrono::milliseconds lease_ttl)
    : settings_(std::move(settings)), controller_id_(std::move(controller_id)), lease_ttl_(lease_ttl) {}

core::MemberOffer Placement::offer_here(store::Transaction& c) const {
  core::MemberOffer offer{"this member", settings_.labels, settings_.workspace_roots, settings_.capacity, 0};
  if (settings_.capacity > 0) offer.live_runs = c.leases().held_by(controller_id_);
  return offer;
}

std::optional<std::string> Placement::why_not_here(store::Transaction& c, const core::Run& run) const {
  if (run.frozen.backend == core::passive_backend) return std::nullopt;
  return core::misfit(offer_here(c), needs_of(run));
}

std::vector<core::MemberOffer> Placement::live_members(store::Transaction& c) const {
  std::vector<core::MemberOffer> members;
  // Members silent for longer than a lease are gone: whatever they held is taken over.
  // Live runs counted from the leases, exact in this transaction (a member's record has
  // them as of its last heartbeat).
  const auto held = c.leases().held_counts();
  for (const auto& m : c.daemons().list()) {
    if (m.heartbeat_age_ms > lease_ttl_.count()) continue;
    members.push_back(offer_of(m));
    const auto it = held.find(m.id);
    members.back().live_runs = it == held.end() ? 0 : it->second;
  }
  return members;
}

std::string Placement::waiting_reason(const std::vector<core::MemberOffer>& members, const core::Run& run) const {
  return std::string(waiting_for_member_prefix) + core::why_nobody(members, needs_of(run));
}

std::string Placement::waiting_reason(store::Transaction& c, const core::Run& run) const {
  return waiting_reason(live_members(c), run);
}

bool Placement::only_elsewhere(store::Store& db, const std::string& cwd) const {
  if (!settings_.workspace_roots.empty() && core::within_roots(settings_.workspace_roots, cwd)) return false;
  auto found = db.read([&](store::Transaction& c) -> core::Result<bool> {
    for (const auto& m : c.daemons().list())
      if (m.id != controller_id_ && m.heartbeat_age_ms <= lease_ttl_.count() && !m.workspace_roots.empty() &&
          core::within_roots(m.workspace_roots, cwd))
        return true;
    return false;
  });
  return found && *found;
}

void Placement::wait_for_member(store::Transaction& c, core::Run& run, const store::WaitingStart& start,
                                const std::string& not_here, const Actor& actor) const {
  c.run_starts().put(start);
  run.status = core::RunStatus::ready;
  run.status_reason = waiting_reason(c, run);
  boost::json::object data{{"trigger", start.trigger}, {"reason", run.status_reason}, {"notHere", not_here}};
  if (!run.frozen.placement_labels.empty()) {
    boost::json::array labels;
    for (const auto& label : run.frozen.placement_labels) labels.emplace_back(label);
    data["labels"] = std::move(labels);
  }
  detail::save_with_audit(c, run, "run.waiting_for_member", actor, std::move(data));
  c.wake("starts");
}

}  // namespace agentry::engine
