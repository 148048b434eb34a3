// Opt-in bearer-token auth: every /api route, every stream and the WebSocket handshake
// need the token; public files do not; the token never reaches the logs.
#include "daemon_fixture.hpp"
#include "support/ws_client.hpp"

namespace agentry::integration {
namespace {

constexpr const char* token = "s3cret-token-value";

class AuthTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    run_id_ = create_run();
    start_daemon({{"AGENTRY_DAEMON_AUTH_ENABLED", " Yes "}, {"AGENTRY_DAEMON_TOKEN", token}});
  }
  std::string run_id_;
};

TEST_F(AuthTest, EveryProtectedRouteRefusesMissingWrongAndMalformedTokens) {
  const std::string r = "/api/runs/" + run_id_;
  std::vector<std::pair<std::string, std::string>> routes = {
      {"GET", "/api/daemon"},        {"GET", "/api/backends"},          {"GET", "/api/runs?global=true"},
      {"POST", "/api/runs"},         {"POST", "/api/runs/init"},        {"GET", r},
      {"DELETE", r},                 {"GET", r + "/brief"},             {"POST", r + "/ready"},
      {"POST", r + "/resume"},       {"POST", r + "/abort"},            {"POST", r + "/archive"},
      {"POST", r + "/unarchive"},    {"POST", r + "/reset"},            {"POST", r + "/reconfigure"},
      {"POST", r + "/name"},         {"POST", r + "/note"},             {"POST", r + "/pinned"},
      {"POST", r + "/backend-session"}, {"POST", r + "/backend-session/clear"}, {"POST", r + "/group"},
      {"POST", r + "/group/clear"},  {"GET", r + "/audit"},             {"GET", r + "/timeline"},
      {"GET", r + "/tasks"},         {"POST", r + "/tasks"},            {"GET", r + "/tasks/plan"},
      {"PATCH", r + "/tasks/plan"},  {"DELETE", r + "/tasks/plan"},     {"POST", r + "/tasks/plan/append-notes"},
      {"GET", "/api/agents"},        {"GET", "/api/agents/worker"},     {"GET", "/api/assignments"},
      {"GET", "/api/assignments/feature"}, {"GET", "/api/launchers"},   {"GET", "/api/task-definitions"},
      {"GET", "/api/events/run-summaries"}, {"GET", r + "/events/detail"}, {"GET", r + "/events/timeline"},
      {"GET", r + "/events/audit"},  {"GET", "/api/no-such-route"},
      {"GET", r + "/queued-resume-messages"}, {"POST", r + "/queued-resume-messages"},
      {"DELETE", r + "/queued-resume-messages/m1"}, {"POST", r + "/approvals/a1"},
  };
  std::vector<test::Headers> bad = {
      {},
      {{"Authorization", "Bearer wrong-token"}},
      {{"Authorization", std::string("Bearer ") + token + "x"}},
      {{"Authorization", "Bearer"}},
      {{"Authorization", std::string("Basic ") + token}},
      {{"Authorization", std::string("bearer wrong-token")}},
      {{"Authorization", token}},
  };
  for (const auto& [method, path] : routes) {
    for (auto headers : bad) {
      headers.emplace_back("Content-Type", "application/json");
      auto response = client().request(method, path, "{}", headers);
      EXPECT_EQ(response.status, 401) << method << " " << path;
      EXPECT_NE(response.header("content-type").find("application/json"), std::string::npos) << path;
      EXPECT_EQ(error_code_of(response), "UNAUTHENTICATED") << path;
    }
  }
}

TEST_F(AuthTest, TheRightTokenIsAcceptedAndPublicFilesNeedNone) {
  test::Headers good = {{"Authorization", std::string("Bearer ") + token}};
  EXPECT_EQ(client().get("/api/runs/" + run_id_, good).status, 200);
  // The scheme is case-insensitive (RFC 9110).
  for (const char* scheme : {"bearer ", "BEARER "})
    EXPECT_EQ(client().get("/api/runs/" + run_id_, {{"Authorization", std::string(scheme) + token}}).status, 200)
        << scheme;
  auto sse = client().sse("/api/runs/" + run_id_ + "/events/audit", good);
  EXPECT_TRUE(sse.next(std::chrono::seconds(10)));
  EXPECT_EQ(client().get("/app-config.json").status, 200);
  EXPECT_EQ(client().get("/").status, 200);
}

TEST_F(AuthTest, TheWebSocketHandshakeNeedsTheToken) {
  EXPECT_EQ(test::WsClient::try_handshake("127.0.0.1", daemon_->port(), {}).first, 401);
  EXPECT_EQ(test::WsClient::try_handshake("127.0.0.1", daemon_->port(), {{"Authorization", "Bearer nope"}}).first, 401);
  test::WsClient ws("127.0.0.1", daemon_->port(), {{"Authorization", std::string("Bearer ") + token}});
  auto info = ws.call("daemon.info", boost::json::object{});
  EXPECT_TRUE(info.contains("result"));
}

TEST_F(AuthTest, TheTokenNeverReachesTheLogs) {
  start_daemon({{"AGENTRY_DAEMON_AUTH_ENABLED", "true"}, {"AGENTRY_DAEMON_TOKEN", token}, {"AGENTRY_LOG_LEVEL", "debug"}});
  client().get("/api/daemon", {{"Authorization", "Bearer wrong-one"}});
  client().get("/api/daemon", {{"Authorization", std::string("Bearer ") + token}});
  daemon_->stop();
  EXPECT_EQ(daemon_->stderr_text().find(token), std::string::npos);
  EXPECT_EQ(daemon_->stderr_text().find("wrong-one"), std::string::npos);
}

TEST_F(DaemonTest, AuthWithoutATokenRefusesToStart) {
  daemon_->stop();
  test::DaemonOptions options;
  options.home = home_;
  options.config_dir = config_;
  options.env = {{"AGENTRY_DAEMON_AUTH_ENABLED", "on"}, {"AGENTRY_DAEMON_TOKEN", "   "}};
  test::DaemonProcess refused(options);
  EXPECT_THROW(refused.start(), std::exception);
  EXPECT_EQ(refused.exit_code(), 3);
  EXPECT_NE(refused.stderr_text().find("AGENTRY_DAEMON_TOKEN"), std::string::npos);
}

}  // namespace
}  // namespace agentry::integration
