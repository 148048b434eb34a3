// Completion notifications over the real daemon: a loopback receiver (tests/support
// TestServer) records what the daemon POSTs and can fail the first N requests. Covers
// run ends and approvals, signatures and idempotency keys, retries and final failure
// (visible over HTTP and WebSocket), a daemon killed between attempts, a local command
// target, and definitions or requests that declare targets badly.
#include "daemon_fixture.hpp"
#include "reference_hmac.hpp"
#include "support/subprocess.hpp"
#include "support/test_server.hpp"
#include "support/test_store.hpp"
#include "support/ws_client.hpp"

#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using namespace std::chrono_literals;

class NotificationsTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    receiver_ = std::make_unique<test::TestServer>([this](test::ServerConnection& conn) {
      auto request = conn.read_request();
      if (!request) return;
      const int n = ++received_;
      const bool fail = n <= fail_first_.load();
      conn.send(fail ? "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnope"
                     : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
    });
    start_daemon(env());
  }

  std::vector<std::pair<std::string, std::string>> env(const std::string& backoff = "100") {
    return {{"AGENTRY_NOTIFY_POLL_MS", "50"}, {"AGENTRY_NOTIFY_BACKOFF_MS", backoff}, {"HOOK_SECRET", secret_}};
  }

  std::string hook_url() const {
    return "http://127.0.0.1:" + std::to_string(receiver_->port()) + "/hooks/agentry?token=abc";
  }

  /// An agent whose front matter declares `notify` as given (YAML lines).
  void write_notifying_agent(const std::string& name, const std::string& steps, const std::string& notify) {
    write_agent(name, "mock", steps, "notify:\n" + notify);
  }

  std::vector<test::ReceivedRequest> wait_for_requests(std::size_t n, std::chrono::milliseconds timeout = 15s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      auto requests = receiver_->requests();
      if (requests.size() >= n) return requests;
      std::this_thread::sleep_for(20ms);
    }
    ADD_FAILURE() << "expected " << n << " requests, got " << receiver_->requests().size();
    return receiver_->requests();
  }

  /// Polls the run's detail until its first notification is in `state`; returns it.
  json::object wait_for_notification(const std::string& run, const std::string& state,
                                     std::chrono::milliseconds timeout = 15s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    json::object last;
    while (std::chrono::steady_clock::now() < deadline) {
      auto detail = get_run(run);
      const auto& list = detail.at("notifications").as_array();
      if (!list.empty()) {
        last = list.at(0).as_object();
        if (last.at("state") == state.c_str()) return last;
      }
      std::this_thread::sleep_for(30ms);
    }
    ADD_FAILURE() << "notification never reached " << state << "; last: " << json::serialize(last);
    return last;
  }

  std::vector<json::object> audit_of(const std::string& run, const std::string& type) {
    std::vector<json::object> out;
    auto audit = client().get("/api/runs/" + run + "/audit").json();
    for (const auto& e : audit.at("events").as_array())
      if (e.at("type") == type.c_str()) out.push_back(e.as_object());
    return out;
  }

  std::string secret_ = "hunter2-not-in-views";
  std::atomic<int> received_{0};
  std::atomic<int> fail_first_{0};
  std::unique_ptr<test::TestServer> receiver_;
};

TEST_F(NotificationsTest, ARunsEndIsPostedOnceSignedAndKeyed) {
  write_notifying_agent("finisher", "{steps: [{say: done}]}",
                        "  - webhook: " + hook_url() + "\n    secret: ${HOOK_SECRET}\n    events: [run.finished]\n");
  auto run = start_agent_run("finisher");
  EXPECT_EQ(wait_until_settled(run), "success");
  auto delivered = wait_for_notification(run, "delivered");
  auto requests = wait_for_requests(1);
  ASSERT_EQ(requests.size(), 1u);
  const auto& rq = requests[0];
  EXPECT_EQ(rq.method, "POST");
  EXPECT_EQ(rq.target, "/hooks/agentry?token=abc");
  EXPECT_EQ(rq.headers.at("content-type"), "application/json");
  EXPECT_EQ(rq.headers.at("x-agentry-event"), "run.finished");
  EXPECT_EQ(rq.headers.at("x-agentry-signature"), "sha256=" + hmac_hex(secret_, rq.body));
  auto body = json::parse(rq.body).as_object();
  EXPECT_EQ(body.at("event"), "run.finished");
  EXPECT_EQ(body.at("run").at("id"), run.c_str());
  EXPECT_EQ(body.at("run").at("status"), "success");
  EXPECT_EQ(body.at("run").at("agent"), "finisher");
  EXPECT_EQ(rq.headers.at("idempotency-key"), std::string(body.at("idempotencyKey").as_string()));
  EXPECT_EQ(delivered.at("idempotencyKey"), body.at("idempotencyKey"));
  EXPECT_EQ(delivered.at("attempts"), 1);
  EXPECT_EQ(delivered.at("event"), "run.finished");
  EXPECT_FALSE(delivered.at("deliveredAt").is_null());
  // The view names the target without its query, and never holds the secret.
  EXPECT_EQ(delivered.at("target"), ("http://127.0.0.1:" + std::to_string(receiver_->port()) + "/hooks/agentry").c_str());
  const auto shown = get_run(run);
  const auto& frozen = shown.at("frozen").at("notify").as_array();
  ASSERT_EQ(frozen.size(), 1u);
  EXPECT_EQ(frozen[0].at("signed"), true);
  EXPECT_EQ(frozen[0].at("origin"), "agent");
  EXPECT_EQ(frozen[0].at("target"), delivered.at("target"));
  const auto detail_text = client().get("/api/runs/" + run).body;
  EXPECT_EQ(detail_text.find(secret_), std::string::npos);
  EXPECT_EQ(detail_text.find("token=abc"), std::string::npos);
  auto audits = audit_of(run, "notification.delivered");
  ASSERT_EQ(audits.size(), 1u);
  EXPECT_EQ(json::serialize(audits[0]).find(secret_), std::string::npos);
  // Exactly once: nothing more arrives.
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(receiver_->requests().size(), 1u);
}

TEST_F(NotificationsTest, AnApprovalThatWaitsTellsTheUser) {
  write_notifying_agent("asker", "{steps: [{ask: {summary: 'rm -rf build', kind: command}}, {say: 'cleaned up'}]}",
                        "  - webhook: " + hook_url() + "\n    events: [run.needs_user]\n");
  auto run = start_agent_run("asker");
  auto requests = wait_for_requests(1);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].headers.at("x-agentry-event"), "run.needs_user");
  EXPECT_EQ(requests[0].headers.count("x-agentry-signature"), 0u);  // no secret, no signature
  auto body = json::parse(requests[0].body).as_object();
  EXPECT_EQ(body.at("event"), "run.needs_user");
  EXPECT_EQ(body.at("approval").at("summary"), "rm -rf build");
  EXPECT_EQ(body.at("run").at("status"), "running");
  const std::string id(body.at("approval").at("approvalId").as_string());
  auto answered = client().post_json("/api/runs/" + run + "/approvals/" + id, json::object{{"decision", "approve"}});
  ASSERT_EQ(answered.status, 200) << answered.body;
  EXPECT_EQ(wait_until_settled(run), "success");
  // This target did not ask for run.finished.
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(receiver_->requests().size(), 1u);
}

TEST_F(NotificationsTest, TwoFailuresThenSuccessTakesThreeAttemptsWithOneKey) {
  fail_first_ = 2;
  write_agent("plain", "mock", "{steps: [{say: done}]}");
  // A run-level target from the request body.
  json::object body{{"agent", "plain"},
                    {"callerCwd", work_.string()},
                    {"overrides", {{"message", "go"}}},
                    {"notify", json::array{json::object{{"webhook", hook_url()}, {"secretEnv", "HOOK_SECRET"}}}}};
  auto created = client().post_json("/api/runs", body);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string run(created.json().at("run").at("runId").as_string());
  auto delivered = wait_for_notification(run, "delivered");
  EXPECT_EQ(delivered.at("attempts"), 3);
  auto requests = wait_for_requests(3);
  ASSERT_EQ(requests.size(), 3u);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(requests[i].headers.at("idempotency-key"), requests[0].headers.at("idempotency-key"));
    EXPECT_EQ(requests[i].headers.at("x-agentry-attempt"), std::to_string(i + 1));
    EXPECT_EQ(requests[i].body, requests[0].body);
    EXPECT_EQ(requests[i].headers.at("x-agentry-signature"), "sha256=" + hmac_hex(secret_, requests[i].body));
  }
  EXPECT_EQ(audit_of(run, "notification.delivered").size(), 1u);
}

TEST_F(NotificationsTest, AlwaysFailingFailsAfterThreeAttemptsVisibleOverHttpAndWebSocket) {
  fail_first_ = 1000;
  write_notifying_agent("finisher", "{steps: [{say: done}]}", "  - webhook: " + hook_url() + "\n");
  auto run = start_agent_run("finisher");
  auto failed = wait_for_notification(run, "failed");
  EXPECT_EQ(failed.at("attempts"), 3);
  EXPECT_NE(std::string(failed.at("lastError").as_string()).find("HTTP 500"), std::string::npos)
      << json::serialize(failed);
  EXPECT_TRUE(failed.at("deliveredAt").is_null());
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(receiver_->requests().size(), 3u);

  test::WsClient ws("127.0.0.1", daemon_->port());
  auto response = ws.call("runs.get", json::object{{"runId", run}});
  ASSERT_TRUE(response.contains("result")) << json::serialize(response);
  const auto& over_ws = response.at("result").at("run").at("notifications").as_array();
  ASSERT_EQ(over_ws.size(), 1u);
  EXPECT_EQ(over_ws[0].at("state"), "failed");
  EXPECT_EQ(over_ws[0].at("attempts"), 3);
  auto audits = audit_of(run, "notification.failed");
  ASSERT_EQ(audits.size(), 1u);
  EXPECT_EQ(audits[0].at("data").at("attempts"), 3);
}

TEST_F(NotificationsTest, ADaemonKilledBetweenAttemptsLeavesTheNextOneToDeliverOnce) {
  fail_first_ = 1;
  start_daemon(env("2500"));  // a long wait after the first failure: the kill lands in it
  write_notifying_agent("finisher", "{steps: [{say: done}]}", "  - webhook: " + hook_url() + "\n");
  auto run = start_agent_run("finisher");
  auto pending = wait_for_notification(run, "pending");
  for (int i = 0; i < 200 && pending.at("attempts") != 1; ++i) {
    std::this_thread::sleep_for(20ms);
    pending = wait_for_notification(run, "pending");
  }
  ASSERT_EQ(pending.at("attempts"), 1) << json::serialize(pending);
  ASSERT_EQ(receiver_->requests().size(), 1u);
  daemon_->kill9();
  start_daemon(env("2500"));
  auto delivered = wait_for_notification(run, "delivered");
  EXPECT_EQ(delivered.at("attempts"), 2);
  std::this_thread::sleep_for(500ms);
  auto requests = receiver_->requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].headers.at("idempotency-key"), requests[0].headers.at("idempotency-key"));
  EXPECT_EQ(requests[1].body, requests[0].body);
}

TEST_F(NotificationsTest, ACommandTargetGetsTheEventOnStdin) {
  const auto out = dir_.path() / "event.json";
  write_notifying_agent("finisher", "{steps: [{say: done}]}",
                        "  - command: [tee, '" + out.string() + "']\n    events: [run.finished]\n");
  auto run = start_agent_run("finisher");
  auto delivered = wait_for_notification(run, "delivered");
  EXPECT_EQ(delivered.at("target"), "command:tee");
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  auto body = json::parse(text.str()).as_object();
  EXPECT_EQ(body.at("event"), "run.finished");
  EXPECT_EQ(body.at("run").at("id"), run.c_str());
}

TEST_F(NotificationsTest, ACommandIsDeliveredWhenItExitsEvenIfItsBackgroundChildKeepsItsOutputOpen) {
  auto environment = env();
  environment.emplace_back("AGENTRY_NOTIFY_TIMEOUT_MS", "4000");
  start_daemon(environment);
  const auto pid_file = dir_.path() / "left-behind.pid";
  // The background sleep inherits the command's stdout and outlives it.
  write_notifying_agent("finisher", "{steps: [{say: done}]}",
                        "  - command: [sh, -c, 'cat > /dev/null; sleep 60 & echo $! > \"" + pid_file.string() +
                            "\"; echo sent']\n    events: [run.finished]\n");
  auto run = start_agent_run("finisher");
  auto delivered = wait_for_notification(run, "delivered", 10s);
  EXPECT_EQ(delivered.at("attempts"), 1) << json::serialize(delivered);
  std::ifstream in(pid_file);
  pid_t sleeper = 0;
  if (in >> sleeper && sleeper > 0) ::kill(sleeper, SIGKILL);
}

TEST_F(NotificationsTest, AnEmbeddedCliRunQueuesAndTheNextDaemonDelivers) {
  daemon_->stop();
  write_agent("plain", "mock", "{steps: [{say: done}]}");
  // The embedded CLI: no daemon is serving, so nobody delivers yet.
  test::SpawnOptions options;
  options.argv = {std::getenv("AGENTRY_BIN"), "run", "plain", "-m", "go", "--notify-webhook", hook_url(),
                  "--notify-secret-env", "HOOK_SECRET"};
  test::EnvOverrides cli_env{{"AGENTRY_HOME", home_.string()},
                             {"AGENTRY_CONFIG_DIR", config_.string()},
                             {"AGENTRY_CONNECT", ""},
                             {"AGENTRY_RUN_ID", ""},
                             {"AGENTRY_PARENT_RUN_ID", ""},
                             {"AGENTRY_RUN_GROUP_ID", ""}};
  for (const auto& kv : test::store_env(home_)) cli_env.push_back(kv);
  options.env = test::environment_with(cli_env);
  options.cwd = work_;
  options.die_with_parent = true;
  auto pid = test::spawn_process(options);
  auto code = test::wait_for_exit(pid, 60s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 0);
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(receiver_->requests().empty());

  start_daemon(env());
  auto requests = wait_for_requests(1);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].headers.at("x-agentry-signature"), "sha256=" + hmac_hex(secret_, requests[0].body));
  auto body = json::parse(requests[0].body).as_object();
  const std::string run(body.at("run").at("id").as_string());
  EXPECT_EQ(wait_for_notification(run, "delivered").at("attempts"), 1);
}

TEST_F(NotificationsTest, BadTargetsAreRefusedWithTheirFieldAndTheDaemonGoesOn) {
  write_notifying_agent("badhook", "{steps: [{say: done}]}",
                        "  - webhook: ftp://example.com/x\n    events: [run.done]\n");
  json::object body{{"agent", "badhook"}, {"callerCwd", work_.string()}, {"overrides", {{"message", "go"}}}};
  auto refused = client().post_json("/api/runs", body);
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("notify[0].webhook"), std::string::npos) << refused.body;
  EXPECT_NE(refused.body.find("http:// or https://"), std::string::npos) << refused.body;

  auto shown = client().get("/api/agents/badhook");
  EXPECT_EQ(shown.status, 422);
  EXPECT_NE(shown.body.find("notify[0].events[0]"), std::string::npos) << shown.body;
  EXPECT_EQ(client().get("/api/agents").status, 200);

  write_agent("plain", "mock", "{steps: [{say: done}]}");
  json::object command{{"agent", "plain"},
                       {"callerCwd", work_.string()},
                       {"notify", json::array{json::object{{"command", json::array{"touch", "/tmp/x"}}}}}};
  auto no_commands = client().post_json("/api/runs/init", command);
  EXPECT_EQ(no_commands.status, 400) << no_commands.body;
  EXPECT_NE(no_commands.body.find("notify[0].command"), std::string::npos) << no_commands.body;
  // The same refusal over WebSocket JSON-RPC.
  test::WsClient ws("127.0.0.1", daemon_->port());
  auto over_ws = ws.call("runs.init", command);
  ASSERT_TRUE(over_ws.contains("error")) << json::serialize(over_ws);
  EXPECT_NE(json::serialize(over_ws).find("notify[0].command"), std::string::npos) << json::serialize(over_ws);
  json::object not_a_list{{"agent", "plain"}, {"callerCwd", work_.string()}, {"notify", "http://x"}};
  auto bad_shape = client().post_json("/api/runs/init", not_a_list);
  EXPECT_EQ(bad_shape.status, 400) << bad_shape.body;

  EXPECT_EQ(client().get("/api/daemon").status, 200);
  EXPECT_TRUE(receiver_->requests().empty());
}

}  // namespace
}  // namespace agentry::integration
