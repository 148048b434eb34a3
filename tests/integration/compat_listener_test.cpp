// The listener that speaks agent-runner's wire (AGENTRY_COMPAT_LISTEN): served beside our
// own port by the same daemon, with agent-runner's app config, its dashboard's files
// told their mount, its error envelope (code and message, its statuses) and the same
// bearer-token rules as our port. The translated API routes have their own tests.
#include "daemon_fixture.hpp"

#include "support/git_repo.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace agentry::integration {
namespace {
namespace json = boost::json;

class CompatListenerTest : public DaemonTest {
 protected:
  void SetUp() override {
    daemon_env_.emplace_back("AGENTRY_COMPAT_LISTEN", "ws://127.0.0.1:0/");
    DaemonTest::SetUp();
    web_ = dir_.make_dir("ar-web");
    dir_.write_file("ar-web/index.html",
                    "<!doctype html><html><head><title>x</title>"
                    "<script type=\"module\" src=\"/assets/index-1a2b.js\"></script>"
                    "<link rel=\"stylesheet\" href=\"/assets/index-1a2b.css\"></head><body></body></html>");
    dir_.write_file("ar-web/assets/index-1a2b.js", "console.log(1)");
  }
  test::HttpClient compat() const { return daemon_->compat_client(); }
  static json::object error_of(const test::HttpResponse& response) {
    auto body = json::parse(response.body);
    EXPECT_TRUE(body.is_object() && body.as_object().contains("error")) << response.body;
    return body.as_object().at("error").as_object();
  }
  std::filesystem::path web_;
};

TEST_F(CompatListenerTest, AnnouncesItsPortAndAnswersTheAppConfigExactly) {
  ASSERT_NE(daemon_->compat_port(), 0);
  EXPECT_NE(daemon_->compat_port(), daemon_->port());
  auto config = compat().get("/app-config.json");
  ASSERT_EQ(config.status, 200);
  // The dashboard's schema for it is strict: one member, "/" at the root.
  EXPECT_EQ(json::parse(config.body), (json::object{{"webBasePath", "/"}}));
}

TEST_F(CompatListenerTest, ErrorsUseItsEnvelopeCodesAndStatuses) {
  auto missing = compat().get("/api/no-such-route");
  EXPECT_EQ(missing.status, 404);
  auto error = error_of(missing);
  EXPECT_EQ(error.at("code"), "NOT_FOUND");
  EXPECT_EQ(error.size(), 2u) << "code and message only, no details: " << missing.body;
  // Its router has no 405: a known path under another method is not found.
  auto wrong_method = compat().post("/app-config.json", "{}");
  EXPECT_EQ(wrong_method.status, 404);
  EXPECT_EQ(error_of(wrong_method).at("code"), "NOT_FOUND");
  // A body over the limit is refused before it is read, in the same envelope.
  auto huge = compat().post("/api/runs", std::string(2 * 1024 * 1024, 'x'));
  EXPECT_EQ(huge.status, 422);
  EXPECT_EQ(error_of(huge).at("code"), "COMMAND_ERROR");
  // Our own port keeps our envelope.
  auto ours = client().get("/api/no-such-route");
  EXPECT_EQ(ours.status, 404);
  EXPECT_TRUE(json::parse(ours.body).at("error").as_object().contains("details")) << ours.body;
}

TEST_F(CompatListenerTest, ServesItsDashboardToldTheMountAndSaysHowToGetOneWithout) {
  auto without = compat().get("/runs/abc");
  EXPECT_EQ(without.status, 503);
  EXPECT_NE(without.body.find("AGENTRY_COMPAT_WEB_DIR"), std::string::npos) << without.body;

  start_daemon({{"AGENTRY_COMPAT_WEB_DIR", web_.string()}, {"AGENTRY_COMPAT_WEB_BASE_PATH", "/agent-runner/"}});
  EXPECT_EQ(json::parse(compat().get("/app-config.json").body), (json::object{{"webBasePath", "/agent-runner"}}));
  for (const char* path : {"/", "/runs/abc", "/agent-runner/", "/agent-runner/runs/abc"}) {
    auto page = compat().get(path);
    ASSERT_EQ(page.status, 200) << path;
    EXPECT_EQ(page.header("content-type"), "text/html; charset=utf-8") << path;
    EXPECT_NE(page.body.find("<script>window.__AGENT_RUNNER_WEB_BASE_PATH__=\"/agent-runner\";</script></head>"),
              std::string::npos)
        << path << ": " << page.body;
    EXPECT_NE(page.body.find("src=\"/agent-runner/assets/index-1a2b.js\""), std::string::npos) << page.body;
    EXPECT_NE(page.body.find("href=\"/agent-runner/assets/index-1a2b.css\""), std::string::npos) << page.body;
  }
  auto script = compat().get("/agent-runner/assets/index-1a2b.js");
  ASSERT_EQ(script.status, 200);
  EXPECT_EQ(script.body, "console.log(1)");
  EXPECT_EQ(compat().get("/agent-runner/assets/missing.js").status, 404);
  EXPECT_EQ(compat().get("/../ar-web/index.html").status, 404);
  // Our own dashboard's mount is not theirs.
  EXPECT_EQ(json::parse(client().get("/app-config.json").body).at("webBasePath"), "");
}

TEST_F(CompatListenerTest, BearerTokenRulesAreOurPortsInItsEnvelope) {
  start_daemon({{"AGENTRY_DAEMON_AUTH_ENABLED", "true"}, {"AGENTRY_DAEMON_TOKEN", "s3cret-token-for-tests"}});
  auto refused = compat().get("/api/no-such-route");
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(error_of(refused).at("code"), "UNAUTHENTICATED");
  auto with_token = compat().get("/api/no-such-route", {{"Authorization", "Bearer s3cret-token-for-tests"}});
  EXPECT_EQ(with_token.status, 404);
  // The app config and the dashboard stay public, as there.
  EXPECT_EQ(compat().get("/app-config.json").status, 200);
}

TEST_F(CompatListenerTest, RefusesToShareAgentrysOwnPortAndABadMount) {
  std::uint16_t port = 0;
  {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor probe(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    port = probe.local_endpoint().port();
  }
  const std::string url = "ws://127.0.0.1:" + std::to_string(port) + "/";
  auto same = test::run_command({test::DaemonProcess::binary_path().string(), "serve", "--listen", url},
                                dir_.path(),
                                {{"AGENTRY_HOME", (dir_.path() / "other-home").string()},
                                 {"AGENTRY_CONFIG_DIR", config_.string()},
                                 {"AGENTRY_COMPAT_LISTEN", url}});
  EXPECT_EQ(same.exit_code, 3) << same.output;
  EXPECT_NE(same.output.find("AGENTRY_COMPAT_LISTEN"), std::string::npos) << same.output;
  EXPECT_NE(same.output.find("--listen"), std::string::npos) << same.output;

  auto bad_mount = test::run_command({test::DaemonProcess::binary_path().string(), "serve", "--listen", "ws://127.0.0.1:0/"},
                                     dir_.path(),
                                     {{"AGENTRY_HOME", (dir_.path() / "other-home").string()},
                                      {"AGENTRY_CONFIG_DIR", config_.string()},
                                      {"AGENTRY_COMPAT_LISTEN", "ws://127.0.0.1:0/"},
                                      {"AGENTRY_COMPAT_WEB_BASE_PATH", "/agent_runner"}});
  EXPECT_EQ(bad_mount.exit_code, 3) << bad_mount.output;
  EXPECT_NE(bad_mount.output.find("AGENTRY_COMPAT_WEB_BASE_PATH"), std::string::npos) << bad_mount.output;
}

}  // namespace
}  // namespace agentry::integration
