// A run's live timeline on a member that does not drive it: a subscriber on beta of a
// run alpha drives gets alpha's durable events and its live deltas, whole and in order,
// relayed from alpha (api/holder_relay.hpp); with alpha gone, from the store.

#include "cluster_fixture.hpp"
#include "support/http_client.hpp"
#include "support/postgres_cluster.hpp"
#include "support/slow_link.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace agentry::integration {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

/// What one subscriber saw of a run's timeline until run.finished.
struct Seen {
  std::vector<std::int64_t> cursors;             // durable events, in order
  std::map<std::string, std::string> delta_text;  // message item -> its deltas joined
  std::map<std::string, std::string> final_text;  // message item -> the durable message's text
  int deltas = 0;
  int deltas_after_their_message = 0;  // a delta after its item's durable message: out of order
  std::string error;
};

/// Follows the run's timeline on `daemon` until run.finished, or until the durable
/// cursor `until` (once it is set).
Seen follow(const test::DaemonProcess& daemon, const std::string& run,
            const std::atomic<std::int64_t>* until = nullptr, const test::Headers& headers = {}) {
  Seen seen;
  try {
    auto sse = daemon.client().sse("/api/runs/" + run + "/events/timeline", headers);
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    for (;;) {
      if (until && !seen.cursors.empty() && seen.cursors.back() >= until->load()) return seen;
      auto event = sse.next(200ms);
      if (!event) {
        if (std::chrono::steady_clock::now() < deadline) continue;
        seen.error = "no event within 30 s";
        return seen;
      }
      const auto envelope = json::parse(event->data).as_object();
      const std::string kind(envelope.at("kind").as_string());
      const auto& payload = envelope.at("payload").as_object();
      if (event->id.empty()) {
        if (kind != "message.delta") continue;
        const std::string item(payload.at("itemId").as_string());
        ++seen.deltas;
        if (seen.final_text.count(item)) ++seen.deltas_after_their_message;
        seen.delta_text[item] += std::string(payload.at("text").as_string());
        continue;
      }
      seen.cursors.push_back(std::stoll(event->id));
      if (kind == "message.completed" && payload.contains("itemId"))
        seen.final_text[std::string(payload.at("itemId").as_string())] = std::string(payload.at("text").as_string());
      if (kind == "run.finished") return seen;
    }
  } catch (const std::exception& e) {
    seen.error = e.what();
  }
  return seen;
}

TEST(ClusterStreams, ASubscriberOnAnotherMemberGetsTheHoldersDeltasWholeAndInOrder) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  std::string text;
  for (int i = 0; i < 40; ++i) text += "word" + std::to_string(i) + " ";
  Cluster cluster(2, "talker",
                  "[{sleepMs: 1000}, {say: '" + text + "', deltas: 200, rateHz: 100}, "
                  "{events: 30, kind: notice, rateHz: 30}, {say: 'and done', deltas: 20, rateHz: 50}]");
  auto& alpha = cluster[0];
  auto& beta = cluster[1];
  const std::string run = start_run(alpha, "talker", cluster.dir.path().string());
  ASSERT_FALSE(run.empty());
  const auto owner = run_of(beta, run).at("owner");
  ASSERT_TRUE(owner.is_object() && owner.at("name") == "alpha") << json::serialize(owner);
  Seen on_alpha, on_beta;
  std::thread a([&] { on_alpha = follow(alpha, run); });
  std::thread b([&] { on_beta = follow(beta, run); });
  a.join();
  b.join();
  ASSERT_EQ(on_alpha.error, "");
  ASSERT_EQ(on_beta.error, "");
  EXPECT_EQ(on_beta.cursors, on_alpha.cursors) << "every durable event, once, in order";
  EXPECT_EQ(on_alpha.final_text.size(), 2u);
  EXPECT_GT(on_beta.deltas, 0) << "beta relays alpha's live deltas";
  EXPECT_EQ(on_beta.deltas_after_their_message, 0);
  for (const auto& [item, final] : on_alpha.final_text) {
    EXPECT_EQ(on_alpha.delta_text[item], final) << item;
    EXPECT_EQ(on_beta.delta_text[item], final) << "beta's deltas of " << item << " are whole";
  }
}

// alpha's stream reaches beta late (a slow link, a loaded member): alpha has ended the
// run and let go of it before its last deltas arrive, and beta relays them all the same,
// whole and before their message, rather than cutting the stream at the run's end.
TEST(ClusterStreams, ARelayedStreamThatArrivesLateIsReadToItsEndBeforeItIsCut) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  test::SlowLink slow_link(800ms);  // beyond the relay's 500 ms look at the run's driver
  Cluster cluster(0, "talker", "[{sleepMs: 1000}, {say: 'one two three four five six seven', deltas: 20, rateHz: 50}]");
  auto& alpha = cluster.add("alpha", {{"AGENTRY_ADVERTISE_URL", slow_link.url()}});
  slow_link.set_target(alpha.port());
  auto& beta = cluster.add("beta");
  const std::string run = start_run(alpha, "talker", cluster.dir.path().string());
  ASSERT_FALSE(run.empty());
  Seen on_beta = follow(beta, run);
  ASSERT_EQ(on_beta.error, "");
  ASSERT_EQ(on_beta.final_text.size(), 1u);
  const auto& [item, final] = *on_beta.final_text.begin();
  EXPECT_EQ(on_beta.delta_text[item], final) << "beta's deltas are whole";
  EXPECT_EQ(on_beta.deltas_after_their_message, 0);
  EXPECT_EQ(wait_until_not_running(beta, run), "success");
}

// alpha is killed while beta relays its run: beta's subscriber goes on from the store
// (beta takes the run over and ends it) with every durable event once, in order: none
// is lost between the relay's last and the takeover.
TEST(ClusterStreams, ASubscriberOnAnotherMemberGoesOnFromTheStoreWhenTheDriverDies) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  Cluster cluster(2, "streamer", "[{events: 100000, kind: notice, rateHz: 20}]");
  auto& alpha = cluster[0];
  auto& beta = cluster[1];
  const std::string run = start_run(alpha, "streamer", cluster.dir.path().string());
  ASSERT_FALSE(run.empty());
  Seen on_beta;
  std::thread b([&] { on_beta = follow(beta, run); });
  std::this_thread::sleep_for(1500ms);
  alpha.kill9();
  b.join();  // beta takes the run over and ends it: run.finished
  ASSERT_EQ(on_beta.error, "") << json::serialize(run_of(beta, run)) << "\nseen " << on_beta.cursors.size()
                               << " events, the store has " << timeline_of(beta, run).size();
  const auto stored = timeline_of(beta, run);
  std::vector<std::int64_t> all;
  for (const auto& [cursor, kind] : stored) all.push_back(cursor);
  EXPECT_EQ(on_beta.cursors, all) << "every durable event, from alpha and from the takeover, once and in order";
  EXPECT_GE(all.size(), 20u);
  EXPECT_EQ(stored.rbegin()->second, "run.finished");
}

// The subscriber's own member dies: it resumes on another member from its last cursor
// (Last-Event-ID) and, with what it had, has every durable event once, in order.
TEST(ClusterStreams, ASubscriberWhoseMemberDiesResumesOnAnotherWithNothingMissing) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  Cluster cluster(3, "streamer", "[{events: 60, kind: notice, rateHz: 30}]");
  auto& alpha = cluster[0];
  auto& beta = cluster[1];
  auto& gamma = cluster[2];
  const std::string run = start_run(alpha, "streamer", cluster.dir.path().string());
  ASSERT_FALSE(run.empty());
  std::atomic<std::int64_t> first_part{20};
  const Seen before = follow(beta, run, &first_part);
  ASSERT_EQ(before.error, "");
  beta.kill9();
  const Seen after = follow(gamma, run, nullptr, {{"Last-Event-ID", std::to_string(before.cursors.back())}});
  ASSERT_EQ(after.error, "");
  std::vector<std::int64_t> both = before.cursors;
  both.insert(both.end(), after.cursors.begin(), after.cursors.end());
  std::vector<std::int64_t> all;
  for (const auto& [cursor, kind] : timeline_of(gamma, run)) all.push_back(cursor);
  EXPECT_EQ(both, all);
}

}  // namespace
}  // namespace agentry::integration
