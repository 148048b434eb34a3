// Run leases through the real daemons: a running run names the member that holds it; on
// a PostgreSQL store, a member killed mid-stream has every run it held taken over by the
// others within the lease time, with nothing it acknowledged lost, and a member paused
// past its lease finds itself fenced when it wakes: its agent stops, it writes nothing.

#include "cluster_fixture.hpp"
#include "daemon_fixture.hpp"
#include "support/postgres_cluster.hpp"
#include "support/test_store.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>

namespace agentry::integration {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

bool pid_alive(pid_t pid) { return ::kill(pid, 0) == 0; }

TEST_F(DaemonTest, ARunningRunNamesItsLeaseHolderAndAnEndedOneNobody) {
  write_agent("waiter", "mock", "{steps: [{waitInput: true}]}");
  const std::string run = start_agent_run("waiter");
  auto detail = get_run(run);
  ASSERT_EQ(detail.at("status"), "running");
  ASSERT_TRUE(detail.at("owner").is_object()) << json::serialize(detail);
  const auto& owner = detail.at("owner").as_object();
  EXPECT_EQ(owner.at("daemonId"), json::value(self_id(*daemon_)));
  EXPECT_FALSE(owner.at("name").as_string().empty());
  EXPECT_GE(owner.at("epoch").as_int64(), 1);
  EXPECT_FALSE(owner.at("leaseExpiresAt").as_string().empty());
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/abort", json::object{}).status, 200);
  EXPECT_EQ(wait_until_settled(run), "aborted");
  EXPECT_TRUE(get_run(run).at("owner").is_null());
}

enum class Silence { kill9, sigstop };

// Three members, 60 runs streaming at the default lease time (10 s); alpha falls silent:
// within the lease time every run it held is taken over by beta or gamma (audited
// run.taken_over), ended as a restart ends a mock run, and every event any reader saw
// from alpha before is still there. Killed, alpha is seen gone on this host at once
// (its pid); paused, it is silent as a member on another machine would be, and only its
// leases' expiry tells.
void take_over_a_silent_member(Silence silence) {
  Cluster cluster(3, "streamer", "[{events: 100000, kind: notice, rateHz: 10}]");
  auto& alpha = cluster[0];
  auto& beta = cluster[1];
  auto& gamma = cluster[2];
  const std::string alpha_id = self_id(alpha);
  const std::set<std::string> survivors{self_id(beta), self_id(gamma)};
  std::vector<std::string> alphas, others;
  for (int i = 0; i < 60; ++i) {
    const auto& on = cluster[static_cast<std::size_t>(i % 3)];
    (i % 3 == 0 ? alphas : others).push_back(start_run(on, "streamer", cluster.dir.path().string()));
  }
  std::this_thread::sleep_for(1500ms);  // every run streams for a while
  std::map<std::string, std::map<std::int64_t, std::string>> seen;
  for (const auto& run : alphas) {
    EXPECT_EQ(run_of(beta, run).at("owner").at("daemonId"), json::value(alpha_id));
    seen[run] = timeline_of(alpha, run);
    EXPECT_GE(seen[run].size(), 3u) << run;
  }

  const auto silent_at = Clock::now();
  if (silence == Silence::kill9) alpha.kill9();
  else ASSERT_EQ(::kill(alpha.pid(), SIGSTOP), 0);
  std::map<std::string, Clock::duration> taken_after;
  while (taken_after.size() < alphas.size() && Clock::now() - silent_at < 20s) {
    std::this_thread::sleep_for(100ms);
    for (const auto& run : alphas)
      if (!taken_after.count(run) && run_of(beta, run).at("status") != "running")
        taken_after[run] = Clock::now() - silent_at;
  }
  ASSERT_EQ(taken_after.size(), alphas.size()) << "not every run alpha held was taken over within 20 s";
  Clock::duration slowest{};
  for (const auto& [run, after] : taken_after) slowest = std::max(slowest, after);
  const auto slowest_ms = std::chrono::duration_cast<std::chrono::milliseconds>(slowest).count();
  EXPECT_LT(slowest, 10s) << "from the member falling silent to the last run reconciled: " << slowest_ms << " ms";
  std::cout << "[ measured ] takeover of " << alphas.size() << " runs after "
            << (silence == Silence::kill9 ? "kill -9" : "SIGSTOP") << ", slowest: " << slowest_ms << " ms\n";

  for (const auto& run : alphas) {
    const auto detail = run_of(gamma, run);
    EXPECT_EQ(detail.at("status"), "error") << json::serialize(detail);
    EXPECT_TRUE(detail.at("owner").is_null());
    auto taken = audit_of(gamma, run, "run.taken_over");
    ASSERT_EQ(taken.size(), 1u) << run << " was taken over once";
    const auto& data = taken[0].at("data").as_object();
    EXPECT_EQ(data.at("fromDaemon"), json::value(alpha_id));
    EXPECT_TRUE(survivors.count(std::string(data.at("toDaemon").as_string()))) << json::serialize(data);
    EXPECT_GE(data.at("epoch").as_int64(), 2);
    // What was read before is all there, as it was.
    const auto after = timeline_of(gamma, run);
    for (const auto& [cursor, kind] : seen[run]) {
      auto it = after.find(cursor);
      ASSERT_NE(it, after.end()) << run << " lost event " << cursor;
      EXPECT_EQ(it->second, kind);
    }
  }
  // The survivors' own runs went on.
  for (const auto& run : others) EXPECT_EQ(run_of(beta, run).at("status"), "running") << run;
  if (silence == Silence::sigstop) ::kill(alpha.pid(), SIGCONT);
}

TEST(RunLeases, AKilledMembersRunsAreTakenOverWithinTheLeaseTimeAndNothingAcknowledgedIsLost) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  if (test::testing_on_postgresql()) GTEST_SKIP() << "runs in the SQLite pass: it makes its own members";
  take_over_a_silent_member(Silence::kill9);
}

TEST(RunLeases, ASilentMembersRunsAreTakenOverWhenTheirLeasesExpireAndNothingAcknowledgedIsLost) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  if (test::testing_on_postgresql()) GTEST_SKIP() << "runs in the SQLite pass: it makes its own members";
  take_over_a_silent_member(Silence::sigstop);
}

// A member paused (SIGSTOP) past its lease: another takes its run over; when it wakes it
// finds itself fenced: the agent's process stops, and nothing it writes reaches the run.
TEST(RunLeases, AMemberPausedPastItsLeaseIsFencedWhenItWakes) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  if (test::testing_on_postgresql()) GTEST_SKIP() << "runs in the SQLite pass: it makes its own members";
  Cluster cluster(2, "sleeper", "[{exec: [sh, -c, 'echo $$ > agent.pid; exec sleep 120']}]",
                  {{"AGENTRY_LEASE_TTL_MS", "2000"}});
  auto& alpha = cluster[0];
  auto& beta = cluster[1];
  const auto work = cluster.dir.make_dir("work");
  const std::string run = start_run(alpha, "sleeper", work.string());
  pid_t agent = 0;
  for (int i = 0; i < 100 && agent == 0; ++i) {
    std::this_thread::sleep_for(50ms);
    std::ifstream in(work / "agent.pid");
    if (in >> agent && !pid_alive(agent)) agent = 0;
  }
  ASSERT_GT(agent, 0) << "the agent's process never started";

  ASSERT_EQ(::kill(alpha.pid(), SIGSTOP), 0);
  ASSERT_EQ(wait_until_not_running(beta, run), "error") << "beta took the run over while alpha was paused";
  ASSERT_EQ(audit_of(beta, run, "run.taken_over").size(), 1u);
  const auto timeline_at_takeover = timeline_of(beta, run);
  const auto audit_at_takeover = beta.client().get("/api/runs/" + run + "/audit?limit=500").json().at("events");
  EXPECT_TRUE(pid_alive(agent)) << "a paused member's agent works on until the member wakes";

  ASSERT_EQ(::kill(alpha.pid(), SIGCONT), 0);
  for (int i = 0; i < 100 && pid_alive(agent); ++i) std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(pid_alive(agent)) << "alpha stopped its agent once it found the run taken over";
  std::this_thread::sleep_for(1s);  // time for a write alpha might still try
  EXPECT_EQ(timeline_of(beta, run), timeline_at_takeover) << "alpha wrote to the run's timeline after the takeover";
  EXPECT_EQ(beta.client().get("/api/runs/" + run + "/audit?limit=500").json().at("events"), audit_at_takeover)
      << "alpha wrote to the run's audit after the takeover";
  EXPECT_NE(alpha.stderr_text().find("no longer holds the run's lease"), std::string::npos) << alpha.stderr_text();
  EXPECT_TRUE(alpha.running()) << "a fenced member serves on";
}

// Any member serves the abort of a run another member drives: the member asked records
// it, and the one holding the run's lease stops the agent; the caller gets a single
// daemon's answer.
TEST(RunLeases, ARunStartedOnOneMemberIsAbortedThroughAnother) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  if (test::testing_on_postgresql()) GTEST_SKIP() << "runs in the SQLite pass: it makes its own members";
  Cluster cluster(2, "waiter", "[{hang: true}]");
  auto& alpha = cluster[0];
  auto& beta = cluster[1];
  const std::string run = start_run(alpha, "waiter", cluster.dir.path().string());
  ASSERT_EQ(run_of(beta, run).at("owner").at("name"), "alpha");

  const auto asked_at = Clock::now();
  auto aborted = beta.client().post_json("/api/runs/" + run + "/abort", json::object{{"reason", "stop from beta"}});
  ASSERT_EQ(aborted.status, 200) << aborted.body;
  // Accepted; the detail answered is read after, by when alpha may already have stopped it.
  const auto answered_status = aborted.json().at("run").at("status");
  EXPECT_TRUE(answered_status == "running" || answered_status == "aborted") << aborted.body;
  EXPECT_EQ(wait_until_not_running(beta, run), "aborted");
  std::cout << "[ measured ] abort through another member: "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - asked_at).count() << " ms\n";
  const auto detail = run_of(alpha, run);
  EXPECT_EQ(detail.at("statusReason"), "stop from beta") << json::serialize(detail);
  EXPECT_TRUE(detail.at("owner").is_null());
  EXPECT_EQ(audit_of(alpha, run, "run.abort_requested").size(), 1u);
  // A run that has ended answers as on one daemon.
  auto again = beta.client().post_json("/api/runs/" + run + "/abort", json::object{});
  EXPECT_EQ(again.status, 422) << again.body;
}

// Any member shows the approvals an agent on another member waits on and takes the
// answer, which reaches the agent on the member holding the run's lease.
TEST(RunLeases, AnApprovalAnAgentOnOneMemberWaitsOnIsAnsweredThroughAnother) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  if (test::testing_on_postgresql()) GTEST_SKIP() << "runs in the SQLite pass: it makes its own members";
  Cluster cluster(2, "asker", "[{ask: {summary: 'rm -rf build', kind: command}}, {say: done}]");
  auto& alpha = cluster[0];
  auto& beta = cluster[1];
  const std::string run = start_run(alpha, "asker", cluster.dir.path().string());
  json::array pending;
  for (int i = 0; i < 100 && pending.empty(); ++i) {
    std::this_thread::sleep_for(50ms);
    pending = run_of(beta, run).at("pendingApprovals").as_array();
  }
  ASSERT_EQ(pending.size(), 1u) << "beta shows what the agent on alpha waits on";
  EXPECT_EQ(pending[0].at("summary"), "rm -rf build");
  EXPECT_EQ(pending[0].at("kind"), "command");
  const std::string approval(pending[0].at("approvalId").as_string());

  auto unknown = beta.client().post_json("/api/runs/" + run + "/approvals/nope", json::object{{"decision", "approve"}});
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  auto answered =
      beta.client().post_json("/api/runs/" + run + "/approvals/" + approval, json::object{{"decision", "approve"}});
  ASSERT_EQ(answered.status, 200) << answered.body;
  EXPECT_TRUE(run_of(alpha, run).at("pendingApprovals").as_array().empty()) << "no longer pending, anywhere";
  EXPECT_EQ(wait_until_not_running(beta, run), "success") << "the agent on alpha heard the answer and went on";
  EXPECT_EQ(audit_of(alpha, run, "run.approval_answered").size(), 1u);
}

// Attachment contents live in one directory every member mounts (AGENTRY_BLOB_DIR): what
// one member stored, another serves.
TEST(RunLeases, MembersSharingABlobDirectoryServeEachOthersAttachments) {
  if (auto missing = test::PostgresCluster::missing_reason()) GTEST_SKIP() << *missing;
  if (test::testing_on_postgresql()) GTEST_SKIP() << "runs in the SQLite pass: it makes its own members";
  test::TempDir shared;
  Cluster cluster(2, "waiter", "[{hang: true}]", {{"AGENTRY_BLOB_DIR", shared.path().string()}});
  auto& alpha = cluster[0];
  auto& beta = cluster[1];
  const std::string run = start_run(alpha, "waiter", cluster.dir.path().string());
  std::string bytes(300 * 1024, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 131 + 7) % 251);
  auto stored = alpha.client().post("/api/runs/" + run + "/attachments", bytes,
                                    {{"X-Agentry-Attachment-Name", "trace.bin"}}, "application/octet-stream");
  ASSERT_EQ(stored.status, 201) << stored.body;
  const std::string id(stored.json().at("attachment").at("attachmentId").as_string());
  auto served = beta.client().get("/api/runs/" + run + "/attachments/" + id + "/content");
  ASSERT_EQ(served.status, 200) << served.body;
  EXPECT_TRUE(served.body == bytes) << "beta served other bytes than alpha stored";
  // Removed through beta: gone from the list everywhere (the content is swept later).
  EXPECT_EQ(beta.client().del("/api/runs/" + run + "/attachments/" + id).status, 200);
  EXPECT_EQ(alpha.client().get("/api/runs/" + run + "/attachments/" + id + "/content").status, 404);
  ASSERT_EQ(alpha.client().post_json("/api/runs/" + run + "/abort", json::object{}).status, 200);
}

}  // namespace
}  // namespace agentry::integration
