// Engine: noticing what another process (an embedded CLI on the same AGENTRY_HOME)
// committed, so that a serving daemon treats it as its own changes: the runs' streams
// wake, dependents of a run that ended start, and schedules set there are armed.
//
// SQLite's data_version on a connection changes only when *another* connection commits.
// The daemon writes through one connection (the write queue) and its readers never
// write, so reading it on the writer tells foreign commits apart from our own, for the
// price of an empty job now and then. What changed is then found by the runs' updated_at
// (every run mutation sets it), from a little before the previous look; a run is
// announced once per revision, however many looks its change stays within that slack.

#include "engine/engine.hpp"

#include "core/clock.hpp"

#include <map>
#include "store/run_repository.hpp"
#include "store/schedule_repository.hpp"
#include "store/store.hpp"

namespace agentry::engine {
namespace {

// Slack for commits that were stamped before our previous look but committed after it,
// and for another process's clock being a little behind ours.
constexpr std::int64_t watermark_slack_ms = 5000;

struct ForeignRun {
  std::string id;
  std::optional<core::Schedule> schedule;
};

}  // namespace

core::Result<int> Engine::notice_foreign_changes() {
  auto version = db_.write<std::int64_t>([](store::Transaction& c) -> core::Result<std::int64_t> {
    return c.runs().others_commit_mark();
  });
  if (!version) return version.failure();
  const std::int64_t now = core::now_ms();
  std::lock_guard lock(foreign_watch_.mutex);
  const bool first = !foreign_watch_.data_version;
  const bool changed = !first && *foreign_watch_.data_version != *version;
  foreign_watch_.data_version = *version;
  const std::int64_t since = foreign_watch_.since_ms;
  if (first || changed) foreign_watch_.since_ms = now - watermark_slack_ms;
  if (!changed) return 0;
  // Timeline events another process wrote touch no run: the feeds of runs driven
  // elsewhere look in the store for them (those relayed from their driver need not).
  bus_.timeline().store_may_be_ahead([this](const std::string& id) { return live_.find(id) != nullptr; });

  auto runs = db_.read([&](store::Transaction& c) -> core::Result<std::vector<ForeignRun>> {
    std::vector<ForeignRun> out;
    std::map<std::string, std::int64_t> seen;
    for (auto& [id, revision] : c.runs().revisions_updated_since(core::format_iso8601(since))) {
      seen[id] = revision;
      if (auto was = foreign_watch_.revisions.find(id); was != foreign_watch_.revisions.end() && was->second == revision)
        continue;  // announced at this revision already
      auto schedule = c.schedules().get(id);
      out.push_back({id, std::move(schedule)});
    }
    foreign_watch_.revisions = std::move(seen);  // what is older than the slack is forgotten
    return out;
  });
  if (!runs) return runs.failure();
  for (const auto& run : *runs) {
    // Streams, the dependency watcher and projections hear of it as of our own changes.
    bus_.run_changed(run.id);
    schedules_->arm(run.id, run.schedule);
  }
  return static_cast<int>(runs->size());
}

}  // namespace agentry::engine
