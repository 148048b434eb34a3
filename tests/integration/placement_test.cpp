// Where runs start: a member takes a run only when it has every label the run needs
// (its agent's or its start request's placement), a workspace root holding its working
// directory, and room under its capacity. A start no member can take now is accepted:
// the run waits `ready`, saying why, and the member that can claims it, once.

#include "cluster_fixture.hpp"
#include "daemon_fixture.hpp"
#include "support/postgres_cluster.hpp"
#include "support/test_store.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace agentry::integration {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string text_of(const json::object& run, const char* field) {
  const auto* v = run.if_contains(field);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

TEST_F(DaemonTest, AtCapacityAStartWaitsReadyAndStartsWhenASlotFrees) {
  start_daemon({{"AGENTRY_MAX_LIVE_RUNS", "1"}});
  write_agent("waiter", "mock", "{steps: [{hang: true}]}");
  const std::string first = start_agent_run("waiter");
  ASSERT_EQ(run_status(first), "running");
  const std::string second = start_agent_run("waiter");
  auto waiting = get_run(second);
  EXPECT_EQ(waiting.at("status"), "ready") << json::serialize(waiting);
  EXPECT_EQ(text_of(waiting, "statusReason").rfind("waiting for a member: ", 0), 0u) << json::serialize(waiting);
  EXPECT_NE(text_of(waiting, "statusReason").find("at capacity"), std::string::npos) << json::serialize(waiting);
  EXPECT_TRUE(waiting.at("owner").is_null());
  auto refused = client().post_json("/api/runs/" + second + "/resume", json::object{{"message", "now"}});
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("waiting_for_member"), std::string::npos) << refused.body;

  ASSERT_EQ(client().post_json("/api/runs/" + first + "/abort", json::object{}).status, 200);
  ASSERT_EQ(wait_until_settled(first), "aborted");
  const auto deadline = Clock::now() + 10s;
  while (run_status(second) != "running" && Clock::now() < deadline) std::this_thread::sleep_for(20ms);
  auto started = get_run(second);
  ASSERT_EQ(started.at("status"), "running") << "the freed slot went to the waiting run: " << json::serialize(started);
  EXPECT_TRUE(started.at("statusReason").is_null()) << json::serialize(started);
  auto audit = client().get("/api/runs/" + second + "/audit?limit=100").json().at("events").as_array();
  int waited = 0, starts = 0;
  for (const auto& e : audit) {
    if (e.at("type") == "run.waiting_for_member") ++waited;
    if (e.at("type") == "run.started") {
      ++starts;
      EXPECT_TRUE(e.at("data").as_object().contains("claimedBy")) << json::serialize(e);
    }
  }
  EXPECT_EQ(waited, 1);
  EXPECT_EQ(starts, 1);
  ASSERT_EQ(client().post_json("/api/runs/" + second + "/abort", json::object{}).status, 200);
}

TEST_F(DaemonTest, ARunNeedingLabelsNoMemberHasWaitsAndAnAbortCallsItsStartOff) {
  write_agent("gpu", "mock", "{steps: [{say: hi}]}", "placement:\n  labels: [gpu]\n");
  const std::string run = start_agent_run("gpu");
  auto waiting = get_run(run);
  ASSERT_EQ(waiting.at("status"), "ready") << json::serialize(waiting);
  EXPECT_EQ(text_of(waiting, "statusReason"), "waiting for a member: no member has the label gpu");
  auto aborted = client().post_json("/api/runs/" + run + "/abort", json::object{{"reason", "no gpu today"}});
  ASSERT_EQ(aborted.status, 200) << aborted.body;
  auto after = get_run(run);
  EXPECT_EQ(after.at("status"), "aborted");
  EXPECT_EQ(after.at("totalSessionCount"), 0) << "it never ran";
  std::this_thread::sleep_for(300ms);  // nothing claims it afterwards
  EXPECT_EQ(run_status(run), "aborted");
}

TEST_F(DaemonTest, AStartRequestsPlacementIsCheckedAtTheBoundary) {
  write_agent("plain", "mock", "{steps: [{say: hi}]}");
  const std::string cwd = dir_.path().string();
  for (const auto& bad : {json::value("gpu"), json::value(json::object{{"labels", "gpu"}}),
                          json::value(json::object{{"labels", json::array{"has space"}}}),
                          json::value(json::object{{"labelz", json::array{"gpu"}}})}) {
    auto response = client().post_json(
        "/api/runs", json::object{{"agent", "plain"}, {"callerCwd", cwd}, {"overrides", {{"message", "go"}}},
                                  {"placement", bad}});
    EXPECT_EQ(response.status, 400) << json::serialize(bad) << ": " << response.body;
    EXPECT_NE(response.body.find("placement"), std::string::npos) << response.body;
  }
  // The request's labels join the agent's: none of this daemon's, so it waits.
  auto response = client().post_json("/api/runs", json::object{{"agent", "plain"},
                                                                {"callerCwd", cwd},
                                                                {"overrides", {{"message", "go"}}},
                                                                {"placement", {{"labels", json::array{"region=eu"}}}}});
  ASSERT_EQ(response.status, 201) << response.body;
  EXPECT_EQ(text_of(response.json().at("run").as_object(), "statusReason"),
            "waiting for a member: no member has the label region=eu");
}

// Two members on PostgreSQL with their own labels and workspace roots: each start goes
// to the member that has what the run needs, whichever member was asked; a run nobody can
// take waits until a member that can joins.
TEST(Placement, StartsGoToTheMemberWithTheirLabelsAndWorkspace) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  Cluster cluster(0, "waiter", "[{hang: true}]");
  const auto a = cluster.dir.make_dir("work/a");
  const auto b = cluster.dir.make_dir("work/b");
  auto& alpha = cluster.add("alpha", {{"AGENTRY_WORKSPACE_ROOTS", a.string()}});
  auto& beta = cluster.add("beta", {{"AGENTRY_WORKSPACE_ROOTS", b.string()}, {"AGENTRY_LABELS", "gpu,region=eu"}});
  const auto owner_name = [&](const std::string& run) {
    EXPECT_EQ(wait_while_status(beta, run, "ready"), "running") << json::serialize(run_of(beta, run));
    const auto detail = run_of(alpha, run);
    return detail.at("owner").is_object() ? std::string(detail.at("owner").at("name").as_string()) : std::string();
  };
  EXPECT_EQ(owner_name(start_run(alpha, "waiter", b.string())), "beta") << "beta has the directory";
  EXPECT_EQ(owner_name(start_run(beta, "waiter", a.string())), "alpha") << "alpha has the directory";
  EXPECT_EQ(owner_name(start_run(alpha, "waiter", a.string())), "alpha");
  // A directory only beta declares, missing here, is accepted and left to beta.
  const std::string elsewhere = start_run(alpha, "waiter", (b / "not-here-yet").string());
  ASSERT_FALSE(elsewhere.empty());
  const auto deadline = Clock::now() + 10s;
  while (audit_of(alpha, elsewhere, "run.started").empty() && Clock::now() < deadline) std::this_thread::sleep_for(50ms);
  auto started = audit_of(alpha, elsewhere, "run.started");
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].at("data").at("claimedBy"), json::value(self_id(beta)));

  // Labels nobody has: it waits, saying so, until a member with them joins.
  const std::string tpu =
      start_run(alpha, "waiter", a.string(), {{"placement", {{"labels", json::array{"tpu"}}}}});
  auto waiting = run_of(beta, tpu);
  EXPECT_EQ(waiting.at("status"), "ready");
  EXPECT_EQ(text_of(waiting, "statusReason"), "waiting for a member: no member has the label tpu");
  auto& gamma = cluster.add("gamma", {{"AGENTRY_LABELS", "tpu"}});
  EXPECT_EQ(owner_name(tpu), "gamma");
  EXPECT_EQ(audit_of(gamma, tpu, "run.waiting_for_member").size(), 1u);
  EXPECT_EQ(audit_of(gamma, tpu, "run.started").size(), 1u);
}

// Thirty starts no member can take wait; two members that can join, ten runs each at
// most: twenty start, each once, and ten wait, saying every member is at capacity.
TEST(Placement, EachWaitingStartIsClaimedOnceWithinCapacity) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  Cluster cluster(1, "waiter", "[{hang: true}]");
  auto& alpha = cluster[0];
  std::vector<std::string> runs;
  for (int i = 0; i < 30; ++i)
    runs.push_back(start_run(alpha, "waiter", cluster.dir.path().string(),
                             {{"placement", {{"labels", json::array{"fast"}}}}}));
  for (const auto& run : runs) ASSERT_EQ(run_of(alpha, run).at("status"), "ready");
  auto& beta = cluster.add("beta", {{"AGENTRY_LABELS", "fast"}, {"AGENTRY_MAX_LIVE_RUNS", "10"}});
  auto& gamma = cluster.add("gamma", {{"AGENTRY_LABELS", "fast"}, {"AGENTRY_MAX_LIVE_RUNS", "10"}});
  std::map<std::string, int> by_owner;
  int waiting = 0;
  const auto deadline = Clock::now() + 15s;
  do {
    std::this_thread::sleep_for(100ms);
    by_owner.clear();
    waiting = 0;
    for (const auto& run : runs) {
      const auto detail = run_of(alpha, run);
      if (detail.at("status") == "running" && detail.at("owner").is_object())
        ++by_owner[std::string(detail.at("owner").at("name").as_string())];
      else
        ++waiting;
    }
  } while ((by_owner["beta"] < 10 || by_owner["gamma"] < 10) && Clock::now() < deadline);
  EXPECT_EQ(by_owner["beta"], 10);
  EXPECT_EQ(by_owner["gamma"], 10);
  EXPECT_EQ(by_owner.count("alpha"), 0u);
  EXPECT_EQ(waiting, 10);
  for (const auto& run : runs) {
    EXPECT_LE(audit_of(beta, run, "run.started").size(), 1u) << run << " started twice";
    EXPECT_LE(run_of(gamma, run).at("totalSessionCount").as_int64(), 1) << run;
  }
  // The reason of those left follows within a sweep or two (a tenth of the lease time each).
  const std::string full = "waiting for a member: every member that can take it is at capacity";
  std::vector<std::string> stale;
  const auto settled_by = Clock::now() + 5s;
  do {
    std::this_thread::sleep_for(100ms);
    stale.clear();
    for (const auto& run : runs)
      if (const auto detail = run_of(gamma, run); detail.at("status") == "ready" && text_of(detail, "statusReason") != full)
        stale.push_back(text_of(detail, "statusReason"));
  } while (!stale.empty() && Clock::now() < settled_by);
  EXPECT_TRUE(stale.empty()) << stale.size() << " still say " << stale.front();
}

}  // namespace
}  // namespace agentry::integration
