// The MCP server over the daemon's streamable HTTP transport (POST /mcp): the handshake
// and its session, a run started through a tool that appears in the API and ends, the
// tools and resources reading it, JSON-RPC errors naming the field, and the same auth
// and browser guard as /api/.
#include "daemon_fixture.hpp"

#include <atomic>
#include <fstream>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using namespace std::chrono_literals;

class McpHttpTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    start_daemon();
    write_agent("echo", "mock", "{steps: [{say: 'hello from the run'}]}");
  }

  test::HttpResponse post(const json::object& message, test::Headers headers = {}) {
    if (!session_.empty()) headers.emplace_back("Mcp-Session-Id", session_);
    headers.emplace_back("Accept", "application/json, text/event-stream");
    return client().post_json("/mcp", message, headers);
  }
  /// A request's answer ({result} or {error}), asserting 200.
  json::object request(const std::string& method, json::object params = {}) {
    auto response = post({{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", std::move(params)}});
    EXPECT_EQ(response.status, 200) << method << ": " << response.body;
    EXPECT_EQ(response.header("content-type"), "application/json");
    return response.status == 200 ? response.json().as_object() : json::object{};
  }
  json::object call(const std::string& tool, json::object arguments) {
    return request("tools/call", {{"name", tool}, {"arguments", std::move(arguments)}});
  }
  void initialize() {
    auto response = post({{"jsonrpc", "2.0"},
                          {"id", ++id_},
                          {"method", "initialize"},
                          {"params",
                           {{"protocolVersion", "2025-06-18"},
                            {"capabilities", json::object{}},
                            {"clientInfo", {{"name", "mcp_test"}, {"version", "1"}}}}}});
    ASSERT_EQ(response.status, 200) << response.body;
    session_ = response.header("mcp-session-id");
    ASSERT_GE(session_.size(), 32u);
    EXPECT_EQ(response.json().at("result").at("protocolVersion"), "2025-06-18");
    auto initialized = post({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    EXPECT_EQ(initialized.status, 202) << initialized.body;
    EXPECT_TRUE(initialized.body.empty());
  }

  std::string session_;
  int id_ = 0;
};

TEST_F(McpHttpTest, ARunStartedThroughTheStartToolAppearsInTheApiAndEnds) {
  initialize();
  EXPECT_EQ(request("tools/list").at("result").at("tools").as_array().size(), 13u);

  auto started = call("start_run", {{"agent", "echo"}, {"message", "go"}, {"callerCwd", work_.string()}});
  const auto& result = started.at("result").as_object();
  ASSERT_EQ(result.at("isError"), false) << json::serialize(started);
  const std::string run(result.at("structuredContent").at("run").at("runId").as_string());
  EXPECT_EQ(json::parse(result.at("content").at(0).at("text").as_string()).at("run").at("runId"), run.c_str());

  EXPECT_EQ(wait_until_settled(run), "success");
  EXPECT_EQ(get_run(run).at("agent"), "echo");

  auto shown = call("show_run", {{"runId", run}});
  EXPECT_EQ(shown.at("result").at("structuredContent").at("run").at("status"), "success");
  auto listed = call("list_runs", {{"limit", 5}});
  EXPECT_EQ(listed.at("result").at("structuredContent").at("runs").at(0).at("runId"), run.c_str());
  auto page = call("read_timeline", {{"runId", run}, {"limit", 1000}});
  std::string said;
  for (const auto& e : page.at("result").at("structuredContent").at("events").as_array())
    if (e.at("kind") == "message.completed") said += e.at("payload").at("text").as_string();
  EXPECT_EQ(said, "hello from the run");

  auto detail = request("resources/read", {{"uri", "agentry://runs/" + run}});
  const auto& contents = detail.at("result").at("contents").at(0);
  EXPECT_EQ(json::parse(contents.at("text").as_string()).at("run").at("runId"), run.c_str());
  auto timeline = request("resources/read", {{"uri", "agentry://runs/" + run + "/timeline"}});
  EXPECT_FALSE(json::parse(timeline.at("result").at("contents").at(0).at("text").as_string())
                   .at("events").as_array().empty());
  auto resources = request("resources/list");
  EXPECT_EQ(resources.at("result").at("resources").at(0).at("uri"), ("agentry://runs/" + run).c_str());

  // The audit says who started it.
  auto audit = client().get("/api/runs/" + run + "/audit").json();
  EXPECT_NE(json::serialize(audit).find("\"mcp\""), std::string::npos) << audit;
}

TEST_F(McpHttpTest, EveryToolReachesItsOperation) {
  write_agent("asker", "mock", "{steps: [{ask: {summary: 'rm -rf build', kind: command}}, {say: 'cleaned up'}]}");
  initialize();
  auto structured = [](const json::object& answer) -> json::object {
    EXPECT_TRUE(answer.contains("result")) << json::serialize(answer);
    if (!answer.contains("result")) return {};
    EXPECT_EQ(answer.at("result").at("isError"), false) << json::serialize(answer);
    return answer.at("result").at("structuredContent").as_object();
  };
  auto pending_approval = [&](const std::string& run) -> std::string {
    for (auto deadline = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < deadline;) {
      auto detail = structured(call("show_run", {{"runId", run}}));
      const auto& pending = detail.at("run").at("pendingApprovals").as_array();
      if (!pending.empty()) return std::string(pending.front().at("approvalId").as_string());
      std::this_thread::sleep_for(50ms);
    }
    ADD_FAILURE() << "no approval on " << run;
    return {};
  };

  const std::string run(structured(call("start_run", {{"agent", "asker"}, {"message", "clean up"}, {"callerCwd", work_.string()}}))
                            .at("run").at("runId").as_string());
  auto answered = structured(call("answer_approval", {{"runId", run}, {"approvalId", pending_approval(run)},
                                                      {"decision", "approve"}}));
  EXPECT_EQ(answered.at("result").at("decision"), "approve");
  EXPECT_EQ(wait_until_settled(run), "success");

  auto added = structured(call("add_task", {{"runId", run}, {"title", "Check the build"}}));
  const std::string task(added.at("task").at("id").as_string());
  EXPECT_EQ(structured(call("list_tasks", {{"runId", run}})).at("tasks").at(0).at("id"), task.c_str());
  auto set = structured(call("set_task", {{"runId", run}, {"taskId", task}, {"status", "completed"}, {"notes", "ok"}}));
  EXPECT_EQ(set.at("task").at("status"), "completed");

  auto asked = structured(call("ask_run", {{"runId", run}, {"question", "what did you do?"}}));
  EXPECT_NE(std::string(asked.at("answer").as_string()).find("question=what did you do?"), std::string::npos) << asked;

  // The workspace is not a git repository: the diff operation runs and says so.
  auto diff = call("read_diff", {{"runId", run}});
  EXPECT_TRUE(diff.contains("result")) << json::serialize(diff);

  // A second session waits on the same approval: a message queues, then an abort ends it.
  structured(call("resume_run", {{"runId", run}, {"message", "again"}}));
  pending_approval(run);
  auto queued = structured(call("queue_message", {{"runId", run}, {"text", "and then this"}}));
  EXPECT_EQ(queued.at("message").at("text"), "and then this");
  EXPECT_EQ(structured(call("abort_run", {{"runId", run}, {"reason", "enough"}})).at("accepted"), true);
  EXPECT_EQ(wait_until_settled(run), "aborted");
}

TEST_F(McpHttpTest, WhileQuestionsWaitOnTheSlowLaneOtherRequestsAreAnswered) {
  // Two answers of 2 s each: as many as the daemon answers at once (more are UNAVAILABLE).
  // ask_run goes to the slow lane like POST /api/runs/:id/ask (unit: SlowWork.McpCalls...).
  write_agent("slow", "mock", "{steps: [{say: hi}], ask: {delayMs: 2000}}");
  initialize();
  const std::string run = start_agent_run("slow");
  ASSERT_EQ(wait_until_settled(run), "success");
  std::vector<std::thread> askers;
  std::atomic<int> answered{0};
  for (int i = 0; i < 2; ++i)
    askers.emplace_back([&, i] {
      auto response = post({{"jsonrpc", "2.0"}, {"id", 100 + i}, {"method", "tools/call"},
                            {"params", {{"name", "ask_run"}, {"arguments", {{"runId", run}, {"question", "how?"}}}}}});
      if (response.status == 200 && response.json().at("result").at("isError") == false) ++answered;
      else ADD_FAILURE() << response.status << " " << response.body;
    });
  std::this_thread::sleep_for(300ms);  // the asks are in
  const auto begun = std::chrono::steady_clock::now();
  EXPECT_EQ(request("ping").at("result"), json::object{});
  EXPECT_EQ(call("show_run", {{"runId", run}}).at("result").at("isError"), false);
  EXPECT_EQ(client().get("/api/daemon").status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - begun, 1500ms) << "a request waited behind the asks";
  for (auto& t : askers) t.join();
  EXPECT_EQ(answered.load(), 2);
}

TEST_F(McpHttpTest, UnknownToolsAndBadArgumentsAreJsonRpcErrorsNamingTheField) {
  initialize();
  auto unknown = call("format_disk", {});
  EXPECT_EQ(unknown.at("error").at("code"), -32602);
  EXPECT_EQ(unknown.at("error").at("data").at("tool"), "format_disk");

  auto wrong_type = call("show_run", {{"runId", 5}});
  EXPECT_EQ(wrong_type.at("error").at("code"), -32602);
  EXPECT_EQ(wrong_type.at("error").at("data").at("field"), "runId");

  auto extra = call("abort_run", {{"runId", "abc"}, {"force", true}});
  EXPECT_EQ(extra.at("error").at("data").at("field"), "force");

  // The operation's own validation, as the HTTP API's: a run id of the wrong shape.
  auto bad_id = call("show_run", {{"runId", "not a run id!"}});
  EXPECT_EQ(bad_id.at("error").at("code"), -32602) << json::serialize(bad_id);
  EXPECT_EQ(bad_id.at("error").at("data").at("field"), "runId");

  auto no_agent = call("start_run", {{"message", "go"}});
  EXPECT_EQ(no_agent.at("error").at("data").at("field"), "agent") << json::serialize(no_agent);

  // A tool that runs and fails: a result the model reads, not a protocol error.
  auto missing = call("show_run", {{"runId", "nosuchrun"}});
  EXPECT_EQ(missing.at("result").at("isError"), true) << json::serialize(missing);
  EXPECT_NE(std::string(missing.at("result").at("content").at(0).at("text").as_string()).find("NOT_FOUND"),
            std::string::npos);

  EXPECT_EQ(request("no/such/method").at("error").at("code"), -32601);
}

TEST_F(McpHttpTest, TheSessionIsIssuedAtInitializeCheckedAfterAndEndedByDelete) {
  auto before = post({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}});
  EXPECT_EQ(before.status, 400) << before.body;
  EXPECT_EQ(before.json().at("error").at("code"), -32600);

  initialize();
  const std::string session = session_;
  session_ = "0123456789abcdef0123456789abcdef";
  EXPECT_EQ(post({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "ping"}}).status, 404);
  session_ = session;
  EXPECT_EQ(post({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "ping"}}, {{"MCP-Protocol-Version", "1999-01-01"}}).status,
            400);
  EXPECT_EQ(post({{"jsonrpc", "2.0"}, {"id", 4}, {"method", "ping"}}, {{"MCP-Protocol-Version", "2025-06-18"}}).status,
            200);

  auto stream = client().get("/mcp", {{"Mcp-Session-Id", session}});
  EXPECT_EQ(stream.status, 405) << stream.body;

  auto ended = client().del("/mcp", {{"Mcp-Session-Id", session}});
  EXPECT_EQ(ended.status, 204) << ended.body;
  EXPECT_EQ(post({{"jsonrpc", "2.0"}, {"id", 5}, {"method", "ping"}}).status, 404);

  auto garbage = client().post("/mcp", "{nope", {{"Mcp-Session-Id", session}});
  EXPECT_EQ(garbage.status, 400);
  EXPECT_EQ(garbage.json().at("error").at("code"), -32700);
}

TEST_F(McpHttpTest, TheBrowserGuardKeepsWebPagesOut) {
  auto foreign = post({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", {{"protocolVersion", "2025-06-18"}}}},
                      {{"Origin", "https://evil.example"}});
  EXPECT_EQ(foreign.status, 403) << foreign.body;
  auto form = client().post("/mcp", R"({"jsonrpc":"2.0","id":1,"method":"ping"})", {}, "text/plain");
  EXPECT_EQ(form.status, 415) << form.body;
}

class McpAuthTest : public DaemonTest {
 protected:
  void SetUp() override {
    daemon_env_ = {{"AGENTRY_DAEMON_AUTH_ENABLED", "1"}, {"AGENTRY_DAEMON_TOKEN", "s3cret-token"}};
    DaemonTest::SetUp();
    start_daemon();
  }
};

TEST_F(McpAuthTest, WithAuthOnTheEndpointNeedsTheBearerToken) {
  const json::object init{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                          {"params", {{"protocolVersion", "2025-06-18"}}}};
  auto refused = client().post_json("/mcp", init);
  EXPECT_EQ(refused.status, 401) << refused.body;
  EXPECT_EQ(refused.header("www-authenticate"), "Bearer");
  auto wrong = client().post_json("/mcp", init, {{"Authorization", "Bearer nope"}});
  EXPECT_EQ(wrong.status, 401);
  auto admitted = client().post_json("/mcp", init, {{"Authorization", "Bearer s3cret-token"}});
  EXPECT_EQ(admitted.status, 200) << admitted.body;
  EXPECT_FALSE(admitted.header("mcp-session-id").empty());
}

TEST_F(McpAuthTest, ARunsOwnTokenReachesOnlyItsRunAndItsSessionIsItsOwn) {
  // The agent hands over its per-run token and waits.
  write_agent("waiter", "subprocess", "{command: [sh, -c, 'echo \"$AGENTRY_DAEMON_TOKEN\" > token.txt; sleep 30']}");
  write_agent("echo", "mock", "{steps: [{say: hi}]}");
  test::HttpClient daemon = client();
  daemon.set_default_header("Authorization", "Bearer s3cret-token");
  auto other = daemon.post_json("/api/runs", json::object{{"agent", "echo"}, {"overrides", {{"message", "go"}}},
                                                          {"callerCwd", work_.string()}});
  ASSERT_EQ(other.status, 201) << other.body;
  const std::string other_id(other.json().at("run").at("runId").as_string());
  auto created = daemon.post_json("/api/runs", json::object{{"agent", "waiter"}, {"overrides", {{"message", "wait"}}},
                                                            {"callerCwd", work_.string()}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string run(created.json().at("run").at("runId").as_string());
  std::string token;
  for (int i = 0; i < 200 && token.size() < 10; ++i) {
    std::this_thread::sleep_for(50ms);
    std::ifstream in(work_ / "token.txt");
    std::getline(in, token);
  }
  ASSERT_EQ(token.rfind("agr_", 0), 0u) << token;

  auto mcp = [this](const std::string& bearer, const std::string& session, const json::object& message) {
    test::Headers headers{{"Authorization", "Bearer " + bearer}};
    if (!session.empty()) headers.emplace_back("Mcp-Session-Id", session);
    return client().post_json("/mcp", message, headers);
  };
  const json::object init{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                          {"params", {{"protocolVersion", "2025-06-18"}}}};
  const std::string agent_session = mcp(token, "", init).header("mcp-session-id");
  ASSERT_FALSE(agent_session.empty());
  auto show = [&](const std::string& id) {
    return mcp(token, agent_session, {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"},
                                      {"params", {{"name", "show_run"}, {"arguments", {{"runId", id}}}}}})
        .json().at("result").as_object();
  };
  EXPECT_EQ(show(run).at("isError"), false);
  auto foreign = show(other_id);
  EXPECT_EQ(foreign.at("isError"), true);
  EXPECT_EQ(foreign.at("structuredContent").at("error").at("code"), "FORBIDDEN");

  // The session belongs to the run's token: the daemon's token does not find it.
  const json::object ping{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "ping"}};
  EXPECT_EQ(mcp("s3cret-token", agent_session, ping).status, 404);
  EXPECT_EQ(mcp(token, agent_session, ping).status, 200);
  EXPECT_EQ(daemon.post_json("/api/runs/" + run + "/abort", json::object{}).status, 200);
}

}  // namespace
}  // namespace agentry::integration
