#include "engine/membership/membership_service.hpp"

#include "core/log.hpp"
#include "store/daemon_repository.hpp"
#include "store/store.hpp"

#include <algorithm>

namespace agentry::engine {
namespace {

constexpr std::int64_t forget_after_ms = 24LL * 3600 * 1000;

MemberState state_of(std::int64_t age_ms, std::chrono::milliseconds lease_ttl) {
  if (age_ms <= lease_ttl.count() / 2) return MemberState::alive;
  if (age_ms <= lease_ttl.count()) return MemberState::suspect;
  return MemberState::dead;
}

}  // namespace

std::string_view to_string(MemberState state) {
  switch (state) {
    case MemberState::alive: return "alive";
    case MemberState::suspect: return "suspect";
    case MemberState::dead: return "dead";
  }
  return "dead";
}

MembershipService::MembershipService(store::Store& db, core::ThreadPool& pool,
                                     std::function<std::int64_t()> live_runs, std::chrono::milliseconds lease_ttl)
    : db_(db), pool_(pool), live_runs_(std::move(live_runs)), lease_ttl_(lease_ttl) {}

MembershipService::~MembershipService() { stop(); }

core::Result<void> MembershipService::start(core::DaemonMember self) {
  stop();
  self.live_runs = live_runs_();
  auto registered = db_.write<bool>([&](store::Transaction& t) -> core::Result<bool> {
    t.daemons().remove_silent(forget_after_ms);
    t.daemons().upsert(self);
    return true;
  });
  if (!registered) return registered.failure();
  {
    std::lock_guard lock(mutex_);
    self_ = std::move(self);
  }
  refresh_member_hosts();
  std::lock_guard lock(mutex_);
  renewal_ = std::make_unique<core::RepeatingTask>(pool_, lease_ttl_ / 4, [this] { heartbeat(); });
  return core::ok();
}

void MembershipService::refresh_member_hosts() {
  std::string host;
  {
    std::lock_guard lock(mutex_);
    if (!self_) return;
    host = self_->host;
  }
  auto records = db_.read([](store::Transaction& t) -> core::Result<std::vector<core::DaemonMember>> {
    return t.daemons().list();
  });
  if (!records) return;  // the last list stands until the database answers again
  std::map<std::string, MemberHost> hosts;
  for (const auto& record : *records)
    hosts[record.id] = record.host == host ? MemberHost::this_host : MemberHost::other_host;
  std::lock_guard lock(mutex_);
  member_hosts_ = std::move(hosts);
}

MemberHost MembershipService::host_of(const std::string& daemon_id) const {
  std::lock_guard lock(mutex_);
  auto it = member_hosts_.find(daemon_id);
  return it == member_hosts_.end() ? MemberHost::unknown : it->second;
}

void MembershipService::heartbeat() {
  core::DaemonMember self;
  {
    std::lock_guard lock(mutex_);
    if (!self_) return;
    self_->live_runs = live_runs_();
    self = *self_;
  }
  auto renewed = db_.write<bool>([&](store::Transaction& t) -> core::Result<bool> {
    t.daemons().upsert(self);
    return true;
  });
  if (!renewed) core::log_warn("renewing this daemon's membership failed", {{"error", renewed.error().message}});
  refresh_member_hosts();
}

void MembershipService::stop() {
  std::unique_ptr<core::RepeatingTask> renewal;
  std::optional<core::DaemonMember> self;
  {
    std::lock_guard lock(mutex_);
    renewal = std::move(renewal_);
    self = std::exchange(self_, std::nullopt);
  }
  if (renewal) renewal->stop();  // outside the lock: a heartbeat in progress takes it
  if (!self) return;
  auto removed = db_.write<bool>([&](store::Transaction& t) -> core::Result<bool> {
    return t.daemons().remove(self->id);
  });
  if (!removed) core::log_warn("leaving the members failed", {{"error", removed.error().message}});
}

core::Result<std::vector<Member>> MembershipService::list() const {
  std::string self_id;
  {
    std::lock_guard lock(mutex_);
    if (self_) self_id = self_->id;
  }
  auto records = db_.read([](store::Transaction& t) -> core::Result<std::vector<core::DaemonMember>> {
    return t.daemons().list();
  });
  if (!records) return records.failure();
  std::vector<Member> out;
  out.reserve(records->size());
  for (auto& record : *records) {
    const auto state = state_of(record.heartbeat_age_ms, lease_ttl_);
    const bool self = record.id == self_id;
    out.push_back(Member{std::move(record), state, self});
  }
  return out;
}

}  // namespace agentry::engine
