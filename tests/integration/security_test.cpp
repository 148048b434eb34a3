// What a hostile web page, repository or request can do to a daemon on its defaults
// (auth off): the cross-site matrix, definition paths, locked overrides, and hostile
// definition files. docs/security.md names these tests.
#include "daemon_fixture.hpp"

#include "support/ws_client.hpp"

namespace agentry::integration {
namespace {
namespace json = boost::json;

class SecurityTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    // An agent whose script runs a command: what an attacker wants to reach.
    write_agent("runner", "mock", "{steps: [{say: hi}]}");
  }

  std::string run_body() const {
    return json::serialize(json::object{
        {"agent", "runner"},
        {"callerCwd", work_.string()},
        {"overrides", {{"message", "x"}, {"backendConfig", {{"steps", json::array{{{"exec", {"touch", "pwned"}}}}}}}}}});
  }
  std::size_t run_count() { return all_run_ids().size(); }
  std::string host() const { return "127.0.0.1:" + std::to_string(daemon_->port()); }
};

TEST_F(SecurityTest, ACrossSitePageCannotStartCommands) {
  const std::string body = run_body();
  struct Attempt {
    const char* what;
    test::Headers headers;
    int status;
  };
  const std::vector<Attempt> attempts = {
      // A form or fetch(no-cors) POST needs no preflight: text/plain, form encodings.
      {"text/plain", {{"Content-Type", "text/plain"}}, 415},
      {"form", {{"Content-Type", "application/x-www-form-urlencoded"}}, 415},
      {"multipart", {{"Content-Type", "multipart/form-data; boundary=x"}}, 415},
      // JSON from another origin (with CORS it would have been preflighted; refuse anyway).
      {"foreign origin", {{"Content-Type", "application/json"}, {"Origin", "https://evil.example"}}, 403},
      {"null origin", {{"Content-Type", "application/json"}, {"Origin", "null"}}, 403},
      {"text/plain from elsewhere", {{"Content-Type", "text/plain"}, {"Origin", "https://evil.example"}}, 403},
      // DNS rebinding: the page's own name resolved to 127.0.0.1.
      {"rebinding", {{"Content-Type", "application/json"}, {"Host", "evil.example:4773"}}, 403},
      {"rebinding, same origin", {{"Content-Type", "application/json"}, {"Host", "evil.example"},
                                  {"Origin", "http://evil.example"}}, 403},
  };
  for (const auto& a : attempts) {
    auto response = client().request("POST", "/api/runs", body, a.headers);
    EXPECT_EQ(response.status, a.status) << a.what << ": " << response.body;
    EXPECT_FALSE(error_code_of(response).empty()) << a.what;
  }
  EXPECT_EQ(run_count(), 0u);
  EXPECT_FALSE(std::filesystem::exists(work_ / "pwned"));

  // The dashboard's own origin, and a listed dev server, are let in (and are then
  // refused the exec override, which the agent did not unlock).
  auto own = client().request("POST", "/api/runs", body, {{"Origin", "http://" + host()}});
  EXPECT_EQ(own.status, 422) << own.body;
  EXPECT_NE(own.body.find("unlockedFields"), std::string::npos) << own.body;
  EXPECT_FALSE(std::filesystem::exists(work_ / "pwned"));
}

TEST_F(SecurityTest, WebSocketHandshakesFromForeignOriginsAreRefused) {
  const auto port = daemon_->port();
  EXPECT_EQ(test::WsClient::try_handshake("127.0.0.1", port, {{"Origin", "https://evil.example"}}).first, 403);
  EXPECT_EQ(test::WsClient::try_handshake("127.0.0.1", port, {{"Origin", "null"}}).first, 403);
  EXPECT_EQ(test::WsClient::try_handshake("127.0.0.1", port, {{"Host", "evil.example"}}).first, 403);
  EXPECT_EQ(test::WsClient::try_handshake("127.0.0.1", port, {{"Origin", "http://" + host()}}).first, 101);
  EXPECT_EQ(test::WsClient::try_handshake("127.0.0.1", port, {}).first, 101);  // the CLI sends no Origin
}

TEST_F(SecurityTest, AllowListedOriginsAndHostsAreLetIn) {
  start_daemon({{"AGENTRY_ALLOWED_ORIGINS", "http://localhost:5173"}, {"AGENTRY_ALLOWED_HOSTS", "agentry.lan"}});
  EXPECT_EQ(client().get("/api/daemon", {{"Origin", "http://localhost:5173"}}).status, 200);
  EXPECT_EQ(client().get("/api/daemon", {{"Host", "agentry.lan:4773"}}).status, 200);
  EXPECT_EQ(client().get("/api/daemon", {{"Origin", "http://localhost:5174"}}).status, 403);
  EXPECT_EQ(test::WsClient::try_handshake("127.0.0.1", daemon_->port(), {{"Origin", "http://localhost:5173"}}).first,
            101);
}

TEST_F(SecurityTest, CrossSiteSubresourcesAndEventStreamsAreRefused) {
  // <img src>, <script src> and EventSource from another site carry Sec-Fetch-Site or Origin.
  EXPECT_EQ(client().get("/api/runs?global=true", {{"Sec-Fetch-Site", "cross-site"}}).status, 403);
  EXPECT_EQ(client().get("/api/events/run-summaries", {{"Origin", "https://evil.example"}}).status, 403);
  EXPECT_EQ(client().get("/api/runs?global=true", {{"Sec-Fetch-Site", "same-origin"}}).status, 200);
}


TEST_F(SecurityTest, TheAttachmentNameHeaderExemptsOnlyTheUploadRoute) {
  // A page cannot send the header without a preflight today, but the exemption must
  // not depend on that: every other route stays JSON-only with it.
  const test::Headers plain{{"Content-Type", "text/plain"}, {"X-Agentry-Attachment-Name", "a.txt"}};
  const std::string body = json::serialize(json::object{
      {"agent", "worker"}, {"assignment", "feature"}, {"callerCwd", work_.string()}, {"cliVars", {{"feature", "x"}}}});
  auto created = client().request("POST", "/api/runs", body, plain);
  EXPECT_EQ(created.status, 415) << created.body;
  EXPECT_EQ(client().request("POST", "/api/runs/init", body, plain).status, 415);
  EXPECT_EQ(run_count(), 0u);

  auto id = create_run();
  EXPECT_EQ(client().request("POST", "/api/runs/" + id + "/name", R"({"name":"n"})", plain).status, 415);
  EXPECT_EQ(client().request("PATCH", "/api/runs/" + id + "/tasks/plan", R"({"status":"completed"})", plain).status,
            415);
  EXPECT_TRUE(get_run(id).at("name").is_null());

  // The upload itself: its body is the file, of any type.
  auto uploaded = client().request("POST", "/api/runs/" + id + "/attachments", "hello", plain);
  EXPECT_EQ(uploaded.status, 201) << uploaded.body;
}
TEST_F(SecurityTest, DefinitionPathsOutsideTheRootsAreOneAnswerNotAnOracle) {
  std::vector<std::string> answers;
  for (const char* target : {"%2fetc%2fpasswd", "%2fetc%2fnothing-here.md", "..%2f..%2fetc%2fhostname?cwd=%2ftmp",
                             "%2fproc%2fself%2fenviron"}) {
    auto response = client().get(std::string("/api/agents/") + target);
    EXPECT_EQ(response.status, 403) << target << ": " << response.body;
    EXPECT_EQ(error_code_of(response), "FORBIDDEN");
    EXPECT_EQ(response.body.find("root:"), std::string::npos);
  }
  // A run can name a definition file by path only inside the roots.
  auto outside = client().post_json(
      "/api/runs/init", json::object{{"agent", "/etc/passwd"}, {"callerCwd", "/"}, {"overrides", {{"message", "x"}}}});
  EXPECT_EQ(outside.status, 403) << outside.body;
  auto inside = client().post_json("/api/runs/init",
                                   json::object{{"agent", (config_ / "agents/worker/agent.md").string()},
                                                {"callerCwd", work_.string()},
                                                {"overrides", {{"message", "x"}}}});
  EXPECT_EQ(inside.status, 201) << inside.body;
}

TEST_F(SecurityTest, ProgramChoosingOverridesNeedTheAgentsConsent) {
  auto refused = client().post("/api/runs", run_body());
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_EQ(refused.json().at("error").at("details").at("field"), "overrides.backendConfig");
  auto launcher = client().post_json("/api/runs", json::object{{"agent", "runner"},
                                                               {"callerCwd", work_.string()},
                                                               {"overrides", {{"message", "x"}, {"launcher", "any"}}}});
  EXPECT_EQ(launcher.status, 422) << launcher.body;
  EXPECT_EQ(run_count(), 0u);

  write_agent("open", "mock", "{steps: [{say: hi}]}", "unlockedFields: [backendConfig]\n");
  auto allowed = client().post_json(
      "/api/runs", json::object{{"agent", "open"},
                                {"callerCwd", work_.string()},
                                {"overrides", {{"message", "x"}, {"backendConfig", {{"steps", json::array{{{"say", "yo"}}}}}}}}});
  ASSERT_EQ(allowed.status, 201) << allowed.body;
  EXPECT_EQ(wait_until_settled(allowed.json().at("run").at("runId").as_string().c_str()), "success");
}

TEST_F(SecurityTest, AHostileProjectDefinitionCannotCrashOrStallTheDaemon) {
  // 20,000 nested fallbacks (220 KB) in a cloned repository's .agentry/.
  std::string deep = "---\nschemaVersion: 1\nbackend: passive\nmodel: \"";
  for (int i = 0; i < 20000; ++i) deep += "${X:-";
  deep += "m" + std::string(20000, '}') + "\"\n---\nbody\n";
  dir_.write_file("repo/.agentry/agents/deep/agent.md", deep);
  // Aliases repeating a large value.
  std::string wide = "---\nschemaVersion: 1\nbackend: passive\nbackendConfig:\n  passive:\n    a: &a \"" +
                     std::string(1000, 'w') + "\"\n    b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n";
  std::string prev = "b";
  for (int level = 0; level < 5; ++level) {
    std::string name = "l" + std::to_string(level);
    wide += "    " + name + ": &" + name + " [";
    for (int k = 0; k < 10; ++k) wide += std::string(k ? ", " : "") + "*" + prev;
    wide += "]\n";
    prev = name;
  }
  wide += "---\n";
  dir_.write_file("repo/.agentry/agents/wide/agent.md", wide);
  const std::string cwd = (dir_.path() / "repo").string();
  // Trusted, so that its ${X} and backendConfig are read at all: trust must not make a
  // hostile file any less bounded (untrusted, both are refused before that).
  ASSERT_EQ(client().post_json("/api/projects/trust", boost::json::object{{"dir", cwd}}).status, 200);

  auto listing = client().get("/api/agents?cwd=" + cwd);
  ASSERT_EQ(listing.status, 200) << listing.body.substr(0, 500);
  auto deep_one = client().get("/api/agents/deep?cwd=" + cwd);
  EXPECT_EQ(deep_one.status, 422) << deep_one.body.substr(0, 500);
  EXPECT_NE(deep_one.body.find("nested more than 32 deep"), std::string::npos) << deep_one.body.substr(0, 500);
  EXPECT_NE(deep_one.body.find("deep/agent.md"), std::string::npos);
  EXPECT_NE(deep_one.body.find("\"field\":\"model\""), std::string::npos) << deep_one.body.substr(0, 500);
  auto wide_one = client().get("/api/agents/wide?cwd=" + cwd);
  EXPECT_EQ(wide_one.status, 422) << wide_one.body.substr(0, 500);
  EXPECT_LT(wide_one.body.size(), 64u * 1024);
  EXPECT_EQ(client().get("/api/daemon").status, 200);
}

TEST_F(SecurityTest, ALatin1ByteInADefinitionIsAWarningNotABrokenDatabase) {
  dir_.write_file("config/agents/latin/agent.md", "---\nschemaVersion: 1\nbackend: passive\n---\nCaf\xE9 au lait.\n");
  auto agents = client().get("/api/agents");
  ASSERT_EQ(agents.status, 200);
  auto parsed = agents.json();  // the answer is valid JSON, hence valid UTF-8
  EXPECT_NE(agents.body.find("not valid UTF-8"), std::string::npos) << agents.body.substr(0, 400);

  auto created = client().post_json(
      "/api/runs/init", json::object{{"agent", "latin"}, {"callerCwd", work_.string()}, {"overrides", {{"message", "x"}}}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id(created.json().at("run").at("runId").as_string());
  EXPECT_NE(json::serialize(get_run(id)).find("Caf\xEF\xBF\xBD au lait"), std::string::npos);
  EXPECT_EQ(client().get("/api/runs?global=true").status, 200);
  start_daemon();  // and after a restart
  EXPECT_EQ(client().get("/api/runs?global=true").status, 200);
  EXPECT_EQ(client().get("/api/runs/" + id).status, 200);
}

TEST_F(SecurityTest, NulCharactersAndOddTransferCodingsAreRefused) {
  auto id = create_run();
  auto named = client().post("/api/runs/" + id + "/name", std::string(R"({"name":"a\u0000b"})"));
  EXPECT_EQ(named.status, 400) << named.body;
  EXPECT_NE(named.body.find("NUL"), std::string::npos);
  EXPECT_EQ(client().get("/api/runs/" + id + "/tasks/a%00b").status, 400);

  const std::string chunked = "POST /api/runs/" + id + "/name HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                              "Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n" +
                              "Connection: close\r\n\r\n5\r\n{\"a\":\r\n0\r\n\r\n";
  auto answer = client().raw_exchange(chunked);
  EXPECT_EQ(answer.rfind("HTTP/1.1 501", 0), 0u) << answer;
  EXPECT_TRUE(get_run(id).at("name").is_null());
}

TEST_F(SecurityTest, NumbersTooLargeToStoreAreRefusedAndListingsStayReadable) {
  // Boost.JSON reads 1e400 as infinity and would write `Infinity`, which is not JSON.
  write_agent("open", "mock", "{steps: [{say: hi}]}", "unlockedFields: [backendConfig]\n");
  auto created = client().post("/api/runs/init",
                               R"({"agent":"open","callerCwd":"/tmp","overrides":{"message":"x","backendConfig":{"x":1e400}}})");
  EXPECT_EQ(created.status, 400) << created.body;
  EXPECT_EQ(created.json().at("error").at("details").at("reason"), "non_finite_number");
  test::WsClient ws("127.0.0.1", daemon_->port());
  ws.send_text(R"({"jsonrpc":"2.0","id":7,"method":"runs.init","params":{"agent":"open","r":1e400}})");
  auto answer = ws.receive(std::chrono::seconds(10));
  ASSERT_TRUE(answer);
  auto rpc = json::parse(*answer).as_object();
  ASSERT_TRUE(rpc.contains("error")) << *answer;
  EXPECT_EQ(rpc.at("error").at("data").at("details").at("reason"), "non_finite_number") << *answer;
  EXPECT_EQ(client().get("/api/runs").status, 200);
  EXPECT_EQ(run_count(), 0u);
}

}  // namespace
}  // namespace agentry::integration
