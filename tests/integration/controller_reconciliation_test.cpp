// Runs whose controller is gone, through the real daemon: a run left `running` in the
// database names a controller process; the daemon decides at startup, and again while it
// serves, whether that process is still the one that drove the run (pid, zombie, start
// time, and the daemon lock: one daemon per home).
//
// Each test makes a real mock run, kills the daemon with SIGKILL so the run stays
// `running`, and rewrites the run's controller_id in the database to name a live process
// this test started (`sleep`), with that process's start time or another one.
#include "daemon_fixture.hpp"

#include "support/subprocess.hpp"
#include "support/test_store.hpp"


#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using namespace std::chrono_literals;

// Field 22 of /proc/<pid>/stat, counted from the last ')' (the command name may hold
// spaces and parentheses).
std::uint64_t start_time_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22; ++i) fields >> field;
  return std::stoull(field);
}

class ControllerReconciliationTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    if (!std::filesystem::exists("/proc/self/stat")) GTEST_SKIP() << "no /proc here";
    write_agent("hanger", "mock", "{steps: [{hang: true}]}");
    test::SpawnOptions sleeper;
    sleeper.argv = {"sleep", "60"};
    sleeper.env = test::environment_with({});
    sleeper.die_with_parent = true;
    owner_ = test::spawn_process(sleeper);
  }
  void TearDown() override {
    end_owner();
    DaemonTest::TearDown();
  }

  /// A run left running by a daemon that was killed, its controller id then set to `controller`.
  std::string orphan_run(const std::string& controller) {
    auto run = start_agent_run("hanger");
    EXPECT_EQ(run_status(run), "running");
    daemon_->kill9();
    // Ids and controller ids are [A-Za-z0-9-]: safe to quote as they are.
    test::exec_store_sql(home_, "UPDATE runs SET controller_id = '" + controller + "' WHERE id = '" + run + "'");
    return run;
  }

  std::string owner_id(const std::string& kind, std::uint64_t start_time) const {
    return kind + "-" + std::to_string(owner_) + "-k3x9ab-" + std::to_string(start_time);
  }

  /// The owner process exits and is reaped: its pid names nobody now.
  void end_owner() {
    if (owner_ <= 0) return;
    ::kill(owner_, SIGKILL);
    (void)test::wait_for_exit(owner_, 5s);
    owner_ = -1;
  }

  std::vector<json::object> reconciled(const std::string& run) {
    std::vector<json::object> out;
    auto body = client().get("/api/runs/" + run + "/audit?limit=5000").json();
    for (const auto& e : body.at("events").as_array())
      if (e.at("type") == "run.controller_reconciled") out.push_back(e.at("data").as_object());
    return out;
  }

  pid_t owner_ = -1;
};

// The daemon holds the home's lock, so a "daemon-*" controller in its database is a daemon
// that is gone, even when the pid, and its start time, name a live process. Not on a
// shared store: there another member on this machine may be that process, and its run is
// left to it (ADaemonControllerOfASharedStoreWhosePidLivesIsLeftAlone).
TEST_F(ControllerReconciliationTest, ADaemonControllerWhosePidLivesIsReconciledAtStartup) {
  if (test::testing_on_postgresql()) GTEST_SKIP() << "a shared store has other daemons: see the next test";
  auto run = orphan_run(owner_id("daemon", start_time_of(owner_)));
  start_daemon();
  EXPECT_EQ(run_status(run), "error");
  auto records = reconciled(run);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].at("decision"), "finalized");
  EXPECT_EQ(records[0].at("reason"), "controller_gone");
  EXPECT_EQ(test::try_reap(owner_), std::nullopt) << "the owner pid was alive throughout";
}

TEST_F(ControllerReconciliationTest, ADaemonControllerOfASharedStoreWhosePidLivesIsLeftAlone) {
  if (!test::testing_on_postgresql()) GTEST_SKIP() << "one daemon per SQLite home: see the previous test";
  auto run = orphan_run(owner_id("daemon", start_time_of(owner_)));
  start_daemon();
  EXPECT_EQ(run_status(run), "running");
  auto records = reconciled(run);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].at("decision"), "skipped_live_owner");
  EXPECT_EQ(records[0].at("reason"), "owner_pid_alive");
}

// An embedded CLI's id whose pid is alive but started at another time: the pid was reused.
TEST_F(ControllerReconciliationTest, ACliControllerWhosePidWasReusedIsReconciledAtStartup) {
  auto run = orphan_run(owner_id("cli", start_time_of(owner_) + 1));
  start_daemon();
  EXPECT_EQ(run_status(run), "error");
  auto records = reconciled(run);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].at("decision"), "finalized");
  EXPECT_EQ(records[0].at("reason"), "controller_gone");
}

// A live embedded CLI keeps its run; once it is gone, the daemon's sweep notices while it
// serves, and the run can be resumed and aborted here.
TEST_F(ControllerReconciliationTest, ALiveCliControllerIsLeftAloneUntilItExitsThenTheSweepReconciles) {
  auto run = orphan_run(owner_id("cli", start_time_of(owner_)));
  start_daemon({{"AGENTRY_RECONCILE_INTERVAL_MS", "100"}});
  EXPECT_EQ(run_status(run), "running");
  auto records = reconciled(run);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].at("decision"), "skipped_live_owner");

  auto refused = client().post_json("/api/runs/" + run + "/abort", json::object{});
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("pid " + std::to_string(owner_)), std::string::npos) << refused.body;
  // Several sweeps pass while the owner lives: none of them records anything.
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(run_status(run), "running");
  EXPECT_EQ(reconciled(run).size(), 1u);

  end_owner();
  EXPECT_EQ(wait_until_settled(run, 10s), "error");
  records = reconciled(run);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].at("decision"), "finalized");
  EXPECT_EQ(records[1].at("reason"), "controller_gone");
  EXPECT_EQ(records[1].at("trigger"), "sweep");
  EXPECT_NE(std::string(get_run(run).at("statusReason").as_string()).find("is gone"), std::string::npos);

  auto resumed = client().post_json("/api/runs/" + run + "/resume", json::object{{"message", "again"}});
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  auto aborted = client().post_json("/api/runs/" + run + "/abort", json::object{});
  ASSERT_EQ(aborted.status, 200) << aborted.body;
  EXPECT_EQ(wait_until_settled(run), "aborted");
}

// Without waiting for a sweep: an abort asks whether the controller lives, and once the
// embedded CLI is gone the daemon aborts the run itself.
TEST_F(ControllerReconciliationTest, AbortWorksOnceTheCliControllerIsGone) {
  auto run = orphan_run(owner_id("cli", start_time_of(owner_)));
  start_daemon();
  EXPECT_EQ(client().post_json("/api/runs/" + run + "/abort", json::object{}).status, 422);
  end_owner();
  auto aborted = client().post_json("/api/runs/" + run + "/abort", json::object{});
  ASSERT_EQ(aborted.status, 200) << aborted.body;
  EXPECT_EQ(aborted.json().at("run").at("status").as_string(), "aborted");
}

}  // namespace
}  // namespace agentry::integration
