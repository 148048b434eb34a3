// The daemon as a process: startup output, daemon info, signals, restarts and crashes.
#include "daemon_fixture.hpp"
#include "support/test_store.hpp"


#include <fstream>
#include <iterator>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;

TEST_F(DaemonTest, ReportsItselfAndTheWebConfig) {
  auto info = client().get("/api/daemon");
  ASSERT_EQ(info.status, 200);
  auto daemon = info.json().at("daemon").as_object();
  EXPECT_EQ(daemon.at("pid").as_int64(), daemon_->pid());
  EXPECT_EQ(daemon.at("listenUrl").as_string(), "ws://127.0.0.1:" + std::to_string(daemon_->port()) + "/");
  EXPECT_EQ(std::string(daemon.at("daemonInstanceId").as_string()).rfind("daemon-" + std::to_string(daemon_->pid()) + "-", 0), 0u);
  EXPECT_FALSE(daemon.at("version").as_string().empty());
  EXPECT_FALSE(daemon.at("startedAt").as_string().empty());

  auto config = client().get("/app-config.json");
  ASSERT_EQ(config.status, 200);
  EXPECT_EQ(config.json().at("webBasePath").as_string(), "");
  EXPECT_NE(daemon_->stdout_text().find("serving on ws://127.0.0.1:"), std::string::npos);
}

// libgit2 and libpq (30 libraries between them) are opened on first use: a daemon's start
// does not pay for loading them, and one on SQLite never loads libpq.
TEST_F(DaemonTest, LibgitAndLibpqAreLoadedOnlyWhenUsed) {
  ASSERT_EQ(client().get("/api/daemon").status, 200);
  std::ifstream maps("/proc/" + std::to_string(daemon_->pid()) + "/maps");
  ASSERT_TRUE(maps) << "cannot read the daemon's /proc maps";
  const std::string text((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
  ASSERT_NE(text.find("libsqlite3.so"), std::string::npos) << "the maps were read";
  EXPECT_EQ(text.find("libgit2.so"), std::string::npos) << "no run has asked for a diff yet";
  EXPECT_EQ(text.find("libpq.so") != std::string::npos, test::testing_on_postgresql());
}

TEST_F(DaemonTest, SigintExits130AndSigtermExits0) {
  EXPECT_EQ(daemon_->stop(SIGINT), 130);
  start_daemon();
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
}

TEST_F(DaemonTest, RunsAndTheirHistorySurviveARestart) {
  auto first = create_run("alpha", true);
  auto second = create_run("beta");
  ASSERT_EQ(client().post_json("/api/runs/" + second + "/pinned", json::object{{"pinned", true}}).status, 200);
  ASSERT_EQ(daemon_->stop(), 0);
  start_daemon();
  auto ids = all_run_ids();
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_EQ(run_status(first), "running");  // passive runs have no controller to lose
  EXPECT_TRUE(get_run(second).at("pinned").as_bool());
  auto audit = client().get("/api/runs/" + first + "/audit").json().as_object();
  EXPECT_EQ(audit.at("events").as_array().size(), 2u);
  EXPECT_EQ(audit.at("lastCursor").as_int64(), 2);
}

TEST_F(DaemonTest, AcknowledgedWritesSurviveKill9) {
  std::vector<std::string> created;
  for (int i = 0; i < 40; ++i) created.push_back(create_run("feature " + std::to_string(i)));
  auto last = created.back();
  auto patched = client().patch_json("/api/runs/" + last + "/tasks/plan", json::object{{"status", "in_progress"}});
  ASSERT_EQ(patched.status, 200);
  daemon_->kill9();
  start_daemon();
  auto ids = all_run_ids();
  for (const auto& id : created) EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  auto task = client().get("/api/runs/" + last + "/tasks/plan").json();
  EXPECT_EQ(task.at("task").at("status").as_string(), "in_progress");
}

TEST_F(DaemonTest, RefusesADatabaseFromANewerVersion) {
  ASSERT_EQ(daemon_->stop(), 0);
  test::exec_store_sql(home_, test::testing_on_postgresql() ? "INSERT INTO schema_migrations (version) VALUES (999)"
                                                            : "PRAGMA user_version = 999");
  test::DaemonOptions options;
  options.home = home_;
  options.config_dir = config_;
  test::DaemonProcess refused(options);
  EXPECT_THROW(refused.start(), std::exception);
  EXPECT_NE(refused.stderr_text().find("newer than this agentry understands"), std::string::npos)
      << refused.stderr_text();
  daemon_.reset();
}

TEST_F(DaemonTest, ABadSettingStopsServeWithExit3NamingTheVariableTheValueAndWhatIsAllowed) {
  for (auto [name, value, allowed] :
       {std::tuple{"AGENTRY_HTTP_MAX_CONNECTIONS", "abc", "a whole number from 8"},
        std::tuple{"AGENTRY_HTTP_READ_TIMEOUT_MS", "-1", "milliseconds from 1"},
        std::tuple{"AGENTRY_LOG_LEVEL", "chatty", "debug, info, warn, error"},
        std::tuple{"AGENTRY_ALLOWED_HOSTS", "agentry.lan, a/b", "comma-separated host names"},
        std::tuple{"AGENTRY_ALLOWED_ORIGINS", "*", "comma-separated origins scheme://host[:port]"},
        std::tuple{"AGENTRY_DAEMON_AUTH_ENABLED", "maybe", "true, false, 1, 0, yes, no, on or off"}}) {
    test::DaemonProcess refused({.home = dir_.path() / "refused", .config_dir = config_, .env = {{name, value}}});
    EXPECT_THROW(refused.start(), std::exception) << name;
    EXPECT_EQ(refused.exit_code(), 3) << name;
    const std::string err = refused.stderr_text();
    EXPECT_NE(err.find(std::string(name) + "='" + value + "'"), std::string::npos) << err;
    EXPECT_NE(err.find(allowed), std::string::npos) << err;
  }
}

// One daemon per home (cli/daemon_lock.hpp): a second one waits for the first to stop,
// and gives up with a message naming it.
TEST_F(DaemonTest, ASecondDaemonOnTheSameHomeIsRefused) {
  test::DaemonProcess second({.home = home_, .config_dir = config_, .env = {{"AGENTRY_DAEMON_LOCK_WAIT_MS", "300"}}});
  EXPECT_THROW(second.start(), std::exception);
  EXPECT_NE(second.stderr_text().find("another agentry daemon (pid " + std::to_string(daemon_->pid()) + ") serves"),
            std::string::npos)
      << second.stderr_text();
  EXPECT_EQ(client().get("/api/daemon").status, 200) << "the first one goes on";
}

TEST_F(DaemonTest, ASecondDaemonStartsOnceTheFirstHasStopped) {
  test::DaemonProcess second({.home = home_, .config_dir = config_});
  // The first stops once the second says it waits for it (a sanitized binary takes about
  // a second just to start, so a fixed delay would stop the first before anyone waits).
  // Both write the home's log; only the second ever waits.
  const auto log = second.stderr_path();
  std::thread stopper([this, log] {
    auto waits = [&log] {
      std::ifstream in(log);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      return text.find("waiting for the daemon that serves") != std::string::npos;
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!waits() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    daemon_->stop();
  });
  EXPECT_NO_THROW(second.start());
  stopper.join();
  EXPECT_NE(second.stderr_text().find("waiting for the daemon that serves"), std::string::npos) << second.stderr_text();
  EXPECT_EQ(second.client().get("/api/daemon").status, 200);
}

TEST_F(DaemonTest, ServesTheDashboard) {
  auto index = client().get("/");
  EXPECT_EQ(index.status, 200);
  EXPECT_NE(index.header("content-type").find("text/html"), std::string::npos);
  EXPECT_EQ(client().get("/../CMakeLists.txt").status, 404);
}

}  // namespace
}  // namespace agentry::integration
