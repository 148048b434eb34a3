// The daemon's Unix socket, through the real binary: where it is and who may use it, the
// same answers, auth, streams and WebSocket as the TCP port, the CLI connecting through
// it (also from a bubblewrap sandbox without a network, as an agent does), a stale
// socket replaced, a live one never stolen, --socket none.
#include "cli_fixture.hpp"
#include "daemon_fixture.hpp"
#include "support/sandbox_probe.hpp"
#include "support/ws_client.hpp"

#include <sys/stat.h>

#include <fstream>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

unsigned mode_of(const fs::path& path) {
  struct stat st{};
  return ::lstat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

bool socket_file_at(const fs::path& path) {
  struct stat st{};
  return ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

class UnixSocketTest : public DaemonTest {
 protected:
  test::HttpClient over_socket() const { return daemon_->socket_client(); }
  std::string socket_url() const { return "unix://" + daemon_->socket_path().string(); }
  /// A second daemon on its own home with `extra_args`, not started.
  std::unique_ptr<test::DaemonProcess> other_daemon(const std::string& name, std::vector<std::string> extra_args,
                                                    test::EnvOverrides env = {}) {
    test::DaemonOptions options;
    options.home = dir_.path() / name;
    options.config_dir = config_;
    options.extra_args = std::move(extra_args);
    options.env = std::move(env);
    return std::make_unique<test::DaemonProcess>(options);
  }
};

TEST_F(UnixSocketTest, TheDefaultSocketIsTheUsersAloneAndGoneAfterACleanStop) {
  const fs::path socket = home_ / "socket" / "agentry.sock";
  ASSERT_EQ(daemon_->socket_path(), socket) << daemon_->stdout_text();
  EXPECT_TRUE(socket_file_at(socket));
  EXPECT_EQ(mode_of(socket.parent_path()), 0700u);
  EXPECT_EQ(mode_of(socket), 0600u);
  // The directory is what environments mount into sandboxes: the socket is all it holds.
  std::vector<fs::path> entries(fs::directory_iterator(socket.parent_path()), fs::directory_iterator());
  EXPECT_EQ(entries, std::vector<fs::path>{socket});
  auto info = client().get("/api/daemon").json().at("daemon");
  EXPECT_EQ(info.at("socketUrl"), json::value(socket_url()));
  EXPECT_TRUE(contains(daemon_->stdout_text(), "serving on " + socket_url() + "\n")) << daemon_->stdout_text();

  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
  EXPECT_FALSE(fs::exists(socket));
  start_daemon();
  EXPECT_EQ(daemon_->stop(SIGINT), 130);
  EXPECT_FALSE(fs::exists(socket));
}

TEST_F(UnixSocketTest, TheSocketAnswersAsThePortDoes) {
  auto tcp = client().get("/api/daemon");
  auto unix = over_socket().get("/api/daemon");
  ASSERT_EQ(unix.status, 200) << unix.body;
  EXPECT_EQ(unix.body, tcp.body);

  // A run created through the socket is the one the port shows.
  auto created = over_socket().post_json("/api/runs/init", json::object{{"agent", "worker"},
                                                                         {"assignment", "feature"},
                                                                         {"callerCwd", work_.string()},
                                                                         {"cliVars", {{"feature", "sockets"}}}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id(created.json().at("run").at("runId").as_string());
  auto patched = over_socket().patch_json("/api/runs/" + id + "/tasks/plan", json::object{{"status", "completed"}});
  EXPECT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(over_socket().get("/api/runs/" + id).body, client().get("/api/runs/" + id).body);
  EXPECT_EQ(get_run(id).at("tasks").at(0).at("status"), "completed");

  // The browser guard holds on the socket too: a page's request is no more welcome there.
  auto from_a_page = over_socket().post_json("/api/runs/" + id + "/pinned", json::object{{"pinned", true}},
                                             {{"Origin", "https://evil.example"}});
  EXPECT_EQ(from_a_page.status, 403) << from_a_page.body;
  auto as_text = over_socket().post("/api/runs/" + id + "/pinned", R"({"pinned":true})", {}, "text/plain");
  EXPECT_EQ(as_text.status, client().post("/api/runs/" + id + "/pinned", R"({"pinned":true})", {}, "text/plain").status);
  EXPECT_NE(as_text.status, 200);
}

TEST_F(UnixSocketTest, TheTokenIsNeededOnTheSocketAsOnThePort) {
  const std::string token = "socket-token-value";
  start_daemon({{"AGENTRY_DAEMON_AUTH_ENABLED", "true"}, {"AGENTRY_DAEMON_TOKEN", token}});
  const test::Headers good = {{"Authorization", "Bearer " + token}};
  for (auto http : {client(), over_socket()}) {
    EXPECT_EQ(http.get("/api/runs").status, 401) << http.host();
    EXPECT_EQ(http.get("/api/runs", {{"Authorization", "Bearer nope"}}).status, 401) << http.host();
    EXPECT_EQ(http.get("/api/runs", good).status, 200) << http.host();
  }
  const std::string path = daemon_->socket_path().string();
  EXPECT_EQ(test::WsClient::try_handshake(path, 0, {}).first, 401);
  test::WsClient ws(path, 0, {{"Authorization", "Bearer " + token}});
  EXPECT_TRUE(ws.call("daemon.info", json::object{}).contains("result"));
}

TEST_F(UnixSocketTest, StreamsAndWebSocketJsonRpcWorkOverTheSocket) {
  const std::string id = create_run("streams");
  auto detail = over_socket().sse("/api/runs/" + id + "/events/detail");
  auto snapshot = detail.next(std::chrono::seconds(10));
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(json::parse(snapshot->data).at("run").at("status"), "initialized");

  test::WsClient ws(daemon_->socket_path().string(), 0);
  auto info = ws.call("daemon.info", json::object{});
  ASSERT_TRUE(info.contains("result")) << json::serialize(info);
  EXPECT_EQ(info.at("result").at("daemon").at("socketUrl"), json::value(socket_url()));
  auto subscribed = ws.call("events.subscribe", json::object{{"channel", "run_detail"}, {"runId", id}});
  ASSERT_TRUE(subscribed.contains("result")) << json::serialize(subscribed);

  ASSERT_EQ(over_socket().post_json("/api/runs/" + id + "/pinned", json::object{{"pinned", true}}).status, 200);
  auto changed = detail.next(std::chrono::seconds(10));
  ASSERT_TRUE(changed);
  EXPECT_TRUE(json::parse(changed->data).at("run").at("pinned").as_bool());
  bool notified = false;  // after the snapshot, the change
  for (int i = 0; i < 10 && !notified; ++i) {
    auto note = ws.next_notification(std::chrono::seconds(10));
    ASSERT_TRUE(note);
    notified = contains(json::serialize(note->at("params")), "\"pinned\":true");
  }
  EXPECT_TRUE(notified);
}

TEST_F(UnixSocketTest, AStaleSocketIsReplacedAndALiveOneIsNotStolen) {
  const fs::path socket = daemon_->socket_path();
  daemon_->kill9();
  ASSERT_TRUE(socket_file_at(socket));  // what a crash leaves behind
  start_daemon();
  EXPECT_EQ(daemon_->socket_path(), socket);
  EXPECT_EQ(over_socket().get("/api/daemon").status, 200);

  auto thief = other_daemon("thief-home", {"--socket", socket.string()});
  EXPECT_THROW(thief->start(), std::exception);
  EXPECT_EQ(thief->exit_code(), 4);
  EXPECT_TRUE(contains(thief->stderr_text(), "cannot listen on unix://" + socket.string() +
                                                 ": another process (an agentry daemon?) is listening on it"))
      << thief->stderr_text();
  EXPECT_EQ(over_socket().get("/api/daemon").json().at("daemon").at("pid").as_int64(), daemon_->pid());

  // Nor is a file that is not a socket taken for a stale one.
  const fs::path file = dir_.write_file("not-a-socket", "precious");
  auto careless = other_daemon("careless-home", {"--socket", file.string()});
  EXPECT_THROW(careless->start(), std::exception);
  EXPECT_TRUE(contains(careless->stderr_text(), "something that is not a socket is there")) << careless->stderr_text();
  std::ifstream in(file);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "precious");
}

// An agent outlives a daemon killed under it; it must not have inherited the daemon's
// listener, or the socket would still answer and the next daemon refuse to start.
TEST_F(UnixSocketTest, AnAgentThatOutlivesAKilledDaemonDoesNotHoldItsSocket) {
  dir_.write_file("config/agents/sleeper/agent.md",
                  "---\nschemaVersion: 1\nbackend: subprocess\nbackendConfig:\n  subprocess:\n"
                  "    command: [sh, -c, 'echo started > started.txt; exec sleep 60']\n---\nSleeps.\n");
  const std::string id = start_agent_run("sleeper");
  for (int i = 0; i < 200 && !fs::exists(work_ / "started.txt"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  ASSERT_TRUE(fs::exists(work_ / "started.txt")) << json::serialize(get_run(id));
  daemon_->kill9();
  start_daemon();
  EXPECT_EQ(over_socket().get("/api/daemon").json().at("daemon").at("pid").as_int64(), daemon_->pid());
}

TEST_F(UnixSocketTest, SocketNoneListensOnThePortAloneAndAnotherPathIsUsed) {
  auto portless = other_daemon("none-home", {"--socket", "none"});
  portless->start();
  EXPECT_TRUE(portless->socket_path().empty()) << portless->stdout_text();
  EXPECT_FALSE(fs::exists(dir_.path() / "none-home" / "socket"));
  EXPECT_TRUE(portless->client().get("/api/daemon").json().at("daemon").at("socketUrl").is_null());
  portless->stop();

  const fs::path elsewhere = dir_.path() / "run" / "agentry" / "d.sock";
  auto moved = other_daemon("moved-home", {}, {{"AGENTRY_SOCKET", elsewhere.string()}});
  moved->start();
  EXPECT_EQ(moved->socket_path(), elsewhere);
  EXPECT_EQ(mode_of(elsewhere.parent_path()), 0700u);  // created for it: private
  EXPECT_EQ(mode_of(elsewhere), 0600u);
  EXPECT_EQ(moved->socket_client().get("/api/daemon").status, 200);
  moved->stop();
  EXPECT_FALSE(fs::exists(elsewhere));

  auto too_long = other_daemon("long-home", {"--socket", "/" + std::string(120, 's') + ".sock"});
  EXPECT_THROW(too_long->start(), std::exception);
  EXPECT_EQ(too_long->exit_code(), 3);
  EXPECT_TRUE(contains(too_long->stderr_text(), "a Unix socket's path may have at most 107 bytes"))
      << too_long->stderr_text();
}

// An agent in a bubblewrap sandbox without a network reports its tasks through the
// socket: the sandbox's read-only view of the host shows it, and the daemon points
// AGENTRY_CONNECT at it, with nothing in the environment's definition.
TEST_F(UnixSocketTest, AnAgentWithoutANetworkCallsBackThroughTheMountedSocket) {
  if (!test::bubblewrap_works()) GTEST_SKIP() << "bubblewrap (bwrap) is missing or cannot create namespaces here";
  const fs::path socket = daemon_->socket_path();
  dir_.write_file("config/environments/offline.yaml", "schemaVersion: 1\nkind: bubblewrap\nnetwork: none\n");
  const std::string script =
      "agentry task set plan -s completed && agentry task set build -s completed && "
      "agentry task set review/check -s completed --notes \"via $AGENTRY_CONNECT\"";
  dir_.write_file("config/agents/offline/agent.md",
                  "---\nschemaVersion: 1\nbackend: subprocess\nexecutionEnvironment: offline\nbackendConfig:\n"
                  "  subprocess:\n    command: [sh, -c, " +
                      json::serialize(json::value(script)) + "]\n---\nAn agent without a network.\n");
  const std::string id = start_feature_run("offline");
  EXPECT_EQ(wait_until_settled(id), "success") << json::serialize(get_run(id));
  const auto run = get_run(id);
  for (const auto& task : run.at("tasks").as_array()) EXPECT_EQ(task.at("status"), "completed") << task;
  EXPECT_EQ(run.at("tasks").at(2).at("notes"), json::value("via unix://" + socket.string()));
}

// The CLI through the socket: a connected command, a task of a run, and a socket missing.
class UnixSocketCliTest : public CliTest {
 protected:
  test::EnvOverrides over_socket() const {
    return {{"AGENTRY_CONNECT", "unix://" + daemon_->socket_path().string()}};
  }
};

TEST_P(UnixSocketCliTest, ConnectedCommandsWorkThroughTheSocket) {
  ASSERT_FALSE(daemon_->socket_path().empty());
  auto started = cli({"run", "worker", "-a", "feature", "--var", "feature=x", "--detach"}, over_socket());
  ASSERT_EQ(started.code, 0) << started.err;
  const std::string id = started.out.substr(0, started.out.find('\n'));
  auto listed = cli({"list", "--global", "--json"}, over_socket());
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_EQ(json::parse(listed.out).at("runs").at(0).at("runId"), json::value(id));
  EXPECT_EQ(cli({"task", "set", "plan", "--status", "completed", "--run", id}, over_socket()).code, 0);
  // The flag works as the variable does, and wins over it.
  auto shown = cli({"--connect", "unix://" + daemon_->socket_path().string(), "show", id, "--json"},
                   {{"AGENTRY_CONNECT", "ws://127.0.0.1:1/"}});
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_EQ(json::parse(shown.out).at("run").at("tasks").at(0).at("status"), "completed");
}

TEST_P(UnixSocketCliTest, AMissingSocketOrARelativePathIsAClearError) {
  const fs::path missing = dir_.path() / "nobody.sock";
  auto none = cli({"list"}, {{"AGENTRY_CONNECT", "unix://" + missing.string()}});
  EXPECT_EQ(none.code, 4);
  EXPECT_TRUE(contains(none.err, "cannot connect to unix://" + missing.string() +
                                     ": No such file or directory; is `agentry serve` running?"))
      << none.err;
  auto relative = cli({"--connect", "unix://agentry.sock", "list"});
  EXPECT_EQ(relative.code, 3);
  EXPECT_TRUE(contains(relative.err, "the socket path must be absolute")) << relative.err;
}

INSTANTIATE_TEST_SUITE_P(Daemon, UnixSocketCliTest, ::testing::Values(CliMode::connected), mode_name);

}  // namespace
}  // namespace agentry::integration
