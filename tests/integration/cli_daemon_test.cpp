// The CLI against a daemon: connecting, auth, errors when there is no daemon, and
// embedded and connected clients sharing one database.
#include "cli_fixture.hpp"

#include <algorithm>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class CliDaemonTest : public CliTest {};

TEST_P(CliDaemonTest, NoDaemonIsAClearRuntimeError) {
  daemon_->stop();
  auto r = cli({"list"});
  EXPECT_EQ(r.code, 4);
  EXPECT_TRUE(contains(r.err, "cannot connect to " + ws_url_)) << r.err;
  EXPECT_TRUE(contains(r.err, "is `agentry serve` running?")) << r.err;
  auto bad_url = cli({"--connect", "http://127.0.0.1:1/", "list"});
  EXPECT_EQ(bad_url.code, 3);
  EXPECT_TRUE(contains(bad_url.err, "invalid --connect URL")) << bad_url.err;
}

TEST_P(CliDaemonTest, TheTokenComesFromTheEnvironmentAndIsNeverPrinted) {
  const std::string token = "s3cret-token-value";
  start_daemon({{"AGENTRY_DAEMON_AUTH_ENABLED", "true"}, {"AGENTRY_DAEMON_TOKEN", token}});
  auto none = cli({"list"});
  EXPECT_EQ(none.code, 3);
  EXPECT_TRUE(contains(none.err, "requires a token: set AGENTRY_DAEMON_TOKEN")) << none.err;
  auto wrong = cli({"list"}, {{"AGENTRY_DAEMON_TOKEN", "not-it"}});
  EXPECT_EQ(wrong.code, 3);
  EXPECT_TRUE(contains(wrong.err, "refused the token")) << wrong.err;
  EXPECT_FALSE(contains(wrong.err, "not-it"));
  auto right = cli({"run", "talker", "-m", "go"}, {{"AGENTRY_DAEMON_TOKEN", token}});
  EXPECT_EQ(right.code, 0) << right.err;
  for (const auto* r : {&none, &wrong, &right}) {
    EXPECT_FALSE(contains(r->out + r->err, token));
  }
  EXPECT_FALSE(contains(daemon_->stderr_text(), token));
}

TEST_P(CliDaemonTest, ConnectFlagWinsAndServeRefusesIt) {
  auto r = cli({"--connect", ws_url_, "list", "--global"}, {{"AGENTRY_CONNECT", "ws://127.0.0.1:1/"}});
  EXPECT_EQ(r.code, 0) << r.err;
  auto serve = cli({"serve", "--connect", ws_url_});
  EXPECT_EQ(serve.code, 3);
}

TEST_P(CliDaemonTest, EmbeddedAndConnectedClientsShareTheDatabase) {
  // A run the daemon drives, seen embedded; a run the CLI drives, seen through the daemon.
  auto detached = cli({"run", "hanger", "-m", "go", "--detach"});
  ASSERT_EQ(detached.code, 0) << detached.err;
  const std::string daemon_run = detached.out.substr(0, detached.out.find('\n'));
  auto embedded_list = cli({"list", "--json"}, {{"AGENTRY_CONNECT", ""}});
  ASSERT_EQ(embedded_list.code, 0) << embedded_list.err;
  EXPECT_EQ(json::parse(embedded_list.out).at("runs").at(0).at("runId"), json::value(daemon_run));

  auto embedded_run = cli({"run", "talker", "-m", "go"}, {{"AGENTRY_CONNECT", ""}});
  ASSERT_EQ(embedded_run.code, 0) << embedded_run.err;
  auto response = daemon_->client().get("/api/runs?global=true");
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.json().at("runs").as_array().size(), 2u);
  EXPECT_EQ(cli({"abort", daemon_run}).code, 0);
}

TEST_P(CliDaemonTest, AConnectedFollowerNoticesChangesTheDaemonWasNotToldOf) {
  // The daemon drives nothing for a passive run; a task set embedded (another process)
  // does not wake the daemon's streams, so the follower's fallback poll must see it.
  auto follower = cli_start({"run", "worker", "-a", "feature", "--var", "feature=x"});
  std::string id;
  for (int i = 0; i < 600 && id.empty(); ++i) {
    auto runs = all_runs();
    if (!runs.empty() && runs.at(0).at("status") == "running") id = std::string(runs.at(0).at("runId").as_string());
    else std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(cli({"task", "set", "plan", "-s", "completed", "-r", id}, {{"AGENTRY_CONNECT", ""}}).code, 0);
  EXPECT_EQ(cli({"task", "set", "build", "-s", "completed", "-r", id}, {{"AGENTRY_CONNECT", ""}}).code, 0);
  auto r = cli_wait(follower);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "══ run success: all tasks completed ══")) << r.out;
}

TEST_P(CliDaemonTest, TheDaemonActsOnWhatAnEmbeddedCliCommitted) {
  // b waits on a, which the daemon drives; a succeeds through another process.
  auto a_run = cli({"run", "worker", "-a", "feature", "--var", "feature=a", "--detach"});
  ASSERT_EQ(a_run.code, 0) << a_run.err;
  const std::string a = a_run.out.substr(0, a_run.out.find('\n'));
  auto b_init = cli({"init", "worker", "-a", "feature", "--var", "feature=b", "--after", a});
  ASSERT_EQ(b_init.code, 0) << b_init.err;
  const std::string b = b_init.out.substr(0, b_init.out.find('\n'));
  ASSERT_EQ(cli({"ready", b}).code, 0);
  const test::EnvOverrides embedded{{"AGENTRY_CONNECT", ""}};
  EXPECT_EQ(cli({"task", "set", "plan", "-s", "completed", "-r", a}, embedded).code, 0);
  EXPECT_EQ(cli({"task", "set", "build", "-s", "completed", "-r", a}, embedded).code, 0);
  EXPECT_EQ(api_run(a).at("status"), "success");
  auto started = wait_for_run(b, [](const json::object& r) { return r.at("status") == "running"; });
  EXPECT_EQ(started.at("status"), "running");

  // A schedule set embedded is armed by the serving daemon, which starts the run.
  auto c_init = cli({"init", "talker", "-m", "go"});
  ASSERT_EQ(c_init.code, 0) << c_init.err;
  const std::string c = c_init.out.substr(0, c_init.out.find('\n'));
  ASSERT_EQ(cli({"ready", c}).code, 0);
  auto set = cli({"schedule", "set", c, "--delay", "1s"}, embedded);
  ASSERT_EQ(set.code, 0) << set.err;
  auto ran = wait_for_run(c, [](const json::object& r) { return r.at("status") == "success"; });
  EXPECT_EQ(ran.at("status"), "success");
  auto types = audit_types(c);
  EXPECT_NE(std::find(types.begin(), types.end(), "run.started"), types.end());

  // A child an embedded CLI drove to its end is reported to its parent by the daemon.
  auto child_init = cli({"init", "talker", "-m", "go", "--parent-run", a}, embedded);
  ASSERT_EQ(child_init.code, 0) << child_init.err;
  const std::string child = child_init.out.substr(0, child_init.out.find('\n'));
  auto child_run = cli({"resume", child}, embedded);
  ASSERT_EQ(child_run.code, 0) << child_run.err;
  auto notified = wait_for_run(child, [](const json::object& r) {
    return r.at("parentNotification").is_object() && r.at("parentNotification").at("state") == "delivered";
  });
  EXPECT_EQ(notified.at("parentNotification").at("state"), "delivered");
}

TEST_P(CliDaemonTest, ResumeDetachedAndFollowWithLogs) {
  auto done = cli({"run", "talker", "-m", "go", "--json"});
  ASSERT_EQ(done.code, 0) << done.err;
  const std::string id(json::parse(done.out).at("run").at("runId").as_string());
  auto resumed = cli({"resume", id, "-m", "again", "--detach"});
  EXPECT_EQ(resumed.code, 0) << resumed.err;
  auto logs = cli({"logs", id, "-f"});
  EXPECT_EQ(logs.code, 0) << logs.err;
  EXPECT_TRUE(contains(logs.out, "── attempt 2 · session 1 · mock ──")) << logs.out;
  EXPECT_EQ(show(id).at("totalSessionCount").as_int64(), 2);

  // Resume in the foreground prints only the new session.
  auto again = cli({"resume", id, "-m", "once more"});
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_TRUE(contains(again.out, "attempt 3")) << again.out;
  EXPECT_FALSE(contains(again.out, "attempt 2")) << again.out;
}

INSTANTIATE_TEST_SUITE_P(Daemon, CliDaemonTest, ::testing::Values(CliMode::connected), mode_name);

}  // namespace
}  // namespace agentry::integration
