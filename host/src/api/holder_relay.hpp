#pragma once
// On a store several daemons share, a run's live deltas (message text as it is typed)
// exist only on the member that drives it; the store has its durable events alone. While
// someone here follows such a run's timeline, the relay reads the run's stream from that
// member (GET <advertiseUrl>/api/runs/<id>/events/timeline?after=<cursor>, with the daemon
// token when one is set) and publishes it into this process's feed as it arrives: the
// durable events and the deltas in the driver's order, so that followers here see what
// followers there see. With no driver to reach (the run ended, its member died or
// advertises no URL), the feed looks in the store instead (TimelineFeeds::store_may_be_ahead),
// and the relay tries again when a member drives the run.
//
// One relay per followed run, on a thread of its own (its reads of the store wait).

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace agentry::engine {
class Engine;
}

namespace agentry::api {

class HolderRelay {
 public:
  /// `token`: the daemon token the members share (AGENTRY_DAEMON_TOKEN), empty when none.
  HolderRelay(engine::Engine& engine, std::string token);
  /// Stops every relay; handles still held become inert.
  ~HolderRelay();
  HolderRelay(const HolderRelay&) = delete;
  HolderRelay& operator=(const HolderRelay&) = delete;

  /// Held by each follower of `run_id`'s timeline: the run's relay runs while one is held.
  std::shared_ptr<void> follow(const std::string& run_id);

  struct Relay;
  struct Registry;

 private:
  std::shared_ptr<Registry> registry_;
};

}  // namespace agentry::api
