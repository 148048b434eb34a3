// WebSocket JSON-RPC and HTTP run the same operations: every read gives the same JSON,
// every error the same code and status, every mutation the same resulting run.
#include "daemon_fixture.hpp"
#include "support/ws_client.hpp"

#include <regex>

namespace agentry::integration {
namespace {
namespace json = boost::json;

class WsTest : public DaemonTest {
 protected:
  test::WsClient ws() { return test::WsClient("127.0.0.1", daemon_->port()); }
};

/// The result of a JSON-RPC response, failing the test on an error.
json::value result_of(const json::object& response) {
  if (auto* error = response.if_contains("error")) {
    ADD_FAILURE() << "unexpected error: " << json::serialize(*error);
    return nullptr;
  }
  return response.at("result");
}

/// The run's JSON with its id and every timestamp replaced, so two runs made the same
/// way through two transports compare equal.
std::string normalized(const json::value& value, const std::string& run_id) {
  std::string text = json::serialize(value);
  static const std::regex timestamp(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)");
  text = std::regex_replace(text, timestamp, "T");
  std::string::size_type at;
  while ((at = text.find(run_id)) != std::string::npos) text.replace(at, run_id.size(), "RUN");
  return text;
}

TEST_F(WsTest, ReadsAnswerTheSameJson) {
  auto id = create_run();
  auto socket = ws();
  struct Read {
    std::string http;
    std::string method;
    json::object params;
  };
  std::vector<Read> reads = {
      {"/api/daemon", "daemon.info", {}},
      {"/api/backends", "backends.list", {}},
      {"/api/runs?global=true", "runs.list", {{"global", true}}},
      {"/api/runs/" + id, "runs.get", {{"runId", id}}},
      {"/api/runs/" + id + "/tasks", "tasks.list", {{"runId", id}}},
      {"/api/runs/" + id + "/tasks/plan", "tasks.get", {{"runId", id}, {"taskId", "plan"}}},
      {"/api/runs/" + id + "/audit", "runs.auditHistory", {{"runId", id}}},
      {"/api/runs/" + id + "/timeline?limit=10", "runs.timelineHistory", {{"runId", id}, {"limit", 10}}},
      {"/api/runs/" + id + "/brief", "runs.brief", {{"runId", id}}},
      {"/api/agents", "agents.list", {}},
      {"/api/agents/worker", "agents.get", {{"target", "worker"}}},
      {"/api/task-definitions/review%2Fcheck", "taskDefinitions.get", {{"target", "review/check"}}},
      {"/api/usage?by=run", "usage.summary", {{"by", "run"}}},
  };
  for (const auto& r : reads) {
    auto http = client().get(r.http);
    ASSERT_EQ(http.status, 200) << r.http << ": " << http.body;
    EXPECT_EQ(json::serialize(result_of(socket.call(r.method, r.params))), json::serialize(http.json())) << r.method;
  }
}

TEST_F(WsTest, ErrorsCarryTheSameCodeStatusAndMessage) {
  auto id = create_run();
  auto socket = ws();
  struct Failing {
    std::string http_method, path, body, rpc_method;
    json::object params;
  };
  std::vector<Failing> cases = {
      {"GET", "/api/runs/zzzzzzzzzz", "", "runs.get", {{"runId", "zzzzzzzzzz"}}},
      {"POST", "/api/runs/" + id + "/abort", "{}", "runs.abort", {{"runId", id}}},
      {"POST", "/api/runs/" + id + "/pinned", R"({"pinned":"yes"})", "runs.setPinned", {{"runId", id}, {"pinned", "yes"}}},
      {"POST", "/api/runs/init", R"({"agent":"worker","assignment":"feature","callerCwd":"/tmp"})", "runs.init",
       {{"agent", "worker"}, {"assignment", "feature"}, {"callerCwd", "/tmp"}}},
      {"POST", "/api/runs/init", R"({"agent":"worker","bogus":1})", "runs.init", {{"agent", "worker"}, {"bogus", 1}}},
      {"GET", "/api/runs?global=true&runGroupId=g", "", "runs.list", {{"global", true}, {"runGroupId", "g"}}},
      {"DELETE", "/api/runs/" + id, "", "runs.delete", {{"runId", id}}},
      {"PATCH", "/api/runs/" + id + "/tasks/nope", R"({"status":"completed"})", "tasks.set",
       {{"runId", id}, {"taskId", "nope"}, {"status", "completed"}}},
      {"GET", "/api/agents/ghost", "", "agents.get", {{"target", "ghost"}}},
  };
  for (const auto& c : cases) {
    auto http = client().request(c.http_method, c.path, c.body);
    auto rpc = socket.call(c.rpc_method, c.params);
    ASSERT_TRUE(rpc.contains("error")) << c.rpc_method << " unexpectedly succeeded";
    const auto& error = rpc.at("error").as_object();
    const auto http_body = http.json();
    const auto& envelope = http_body.at("error").as_object();
    EXPECT_EQ(error.at("code").as_int64(), -32003) << c.rpc_method;
    EXPECT_EQ(error.at("data").at("status").as_int64(), http.status) << c.rpc_method;
    EXPECT_EQ(error.at("data").at("code"), envelope.at("code")) << c.rpc_method;
    EXPECT_EQ(error.at("message"), envelope.at("message")) << c.rpc_method;
  }
}

TEST_F(WsTest, MutationsLeaveTheSameRun) {
  auto socket = ws();
  auto over_http = create_run("parity");
  json::object init{{"agent", "worker"}, {"assignment", "feature"}, {"callerCwd", work_.string()},
                    {"cliVars", {{"feature", "parity"}}}};
  auto created = result_of(socket.call("runs.init", init));
  std::string over_ws(created.at("run").at("runId").as_string());

  struct Step {
    std::string http_method, path_suffix, method;
    json::object body;
  };
  std::vector<Step> steps = {
      {"POST", "/ready", "runs.ready", {}},
      {"POST", "/resume", "runs.resume", {}},
      {"PATCH", "/tasks/plan", "tasks.set", {{"taskId", "plan"}, {"status", "completed"}, {"notes", "done"}}},
      {"POST", "/tasks/build/append-notes", "tasks.appendNotes", {{"taskId", "build"}, {"text", "halfway"}}},
      {"POST", "/name", "runs.setName", {{"name", "Parity"}}},
      {"POST", "/note", "runs.setNote", {{"note", "n"}}},
      {"POST", "/pinned", "runs.setPinned", {{"pinned", true}}},
      {"POST", "/abort", "runs.abort", {{"reason", "stop"}}},
      {"POST", "/reset", "runs.reset", {}},
      {"POST", "/archive", "runs.archive", {}},
      {"POST", "/unarchive", "runs.unarchive", {}},
  };
  for (const auto& step : steps) {
    json::object body = step.body;
    std::string path = "/api/runs/" + over_http;
    if (auto task = body.if_contains("taskId")) {
      body.erase("taskId");  // in the path for HTTP
      (void)task;
    }
    path += step.path_suffix;
    auto http = client().request(step.http_method, path, json::serialize(body));
    ASSERT_EQ(http.status, 200) << path << ": " << http.body;
    json::object params = step.body;
    params["runId"] = over_ws;
    auto rpc = result_of(socket.call(step.method, params));
    if (step.method.rfind("tasks.", 0) == 0) {
      EXPECT_EQ(normalized(rpc, over_ws), normalized(http.json(), over_http)) << step.method;
    }
  }
  EXPECT_EQ(normalized(get_run(over_ws), over_ws), normalized(get_run(over_http), over_http));
  auto audit_ws = result_of(socket.call("runs.auditHistory", json::object{{"runId", over_ws}}));
  auto audit_http = client().get("/api/runs/" + over_http + "/audit").json();
  // Same records, only the actor differs by transport.
  std::string a = normalized(audit_ws, over_ws), b = normalized(audit_http, over_http);
  for (auto* text : {&a, &b})
    for (const char* actor : {R"("actor":"ws")", R"("actor":"api")"})
      for (auto at = text->find(actor); at != std::string::npos; at = text->find(actor)) text->replace(at, std::strlen(actor), "A");
  EXPECT_EQ(a, b);
}

TEST_F(WsTest, ProtocolErrorsUseTheJsonRpcCodes) {
  auto socket = ws();
  socket.send_text("{not json");
  auto parse = json::parse(*socket.receive(std::chrono::seconds(10))).as_object();
  EXPECT_EQ(parse.at("error").at("code").as_int64(), -32700);
  socket.send_text(R"({"id":1,"method":"daemon.info"})");
  auto invalid = json::parse(*socket.receive(std::chrono::seconds(10))).as_object();
  EXPECT_EQ(invalid.at("error").at("code").as_int64(), -32600);
  socket.send_text(R"([{"jsonrpc":"2.0","id":1,"method":"daemon.info"}])");
  EXPECT_EQ(json::parse(*socket.receive(std::chrono::seconds(10))).at("error").at("code").as_int64(), -32600);
  auto missing = socket.call("runs.explode", json::object{});
  EXPECT_EQ(missing.at("error").at("code").as_int64(), -32601);
  // A notification (no id) is run but not answered.
  socket.send_text(R"({"jsonrpc":"2.0","method":"daemon.info"})");
  EXPECT_FALSE(socket.receive(std::chrono::milliseconds(300)));
}

TEST_F(WsTest, SubscriptionsDeliverTimelineAuditDetailAndSummaries) {
  write_agent("talker", "mock", "{steps: [{say: hello}]}");
  auto socket = ws();
  auto summaries = result_of(socket.call("events.subscribe", json::object{{"channel", "run_summary"}}));
  EXPECT_TRUE(summaries.at("subscriptionId").is_string());
  auto run = start_agent_run("talker");
  EXPECT_EQ(wait_until_settled(run), "success");
  auto timeline = result_of(socket.call("events.subscribe", json::object{{"channel", "run_timeline"}, {"runId", run}}));
  const std::string sub(timeline.at("subscriptionId").as_string());
  std::vector<std::int64_t> cursors;
  bool saw_summary = false;
  while (cursors.empty() || cursors.back() < 5) {
    auto n = socket.next_notification(std::chrono::seconds(10));
    ASSERT_TRUE(n) << "no notification; cursors so far " << cursors.size();
    const auto& method = n->at("method").as_string();
    ASSERT_NE(method, "events.closed") << json::serialize(*n);
    if (method == "run.summary") saw_summary = true;
    if (method != "run.timeline") continue;
    EXPECT_EQ(n->at("params").at("subscriptionId").as_string(), sub);
    EXPECT_EQ(n->at("params").at("runId").as_string(), run);
    cursors.push_back(n->at("params").at("cursor").as_int64());
  }
  EXPECT_EQ(cursors, (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
  // Summaries are read from the store on the workers while a timeline replays from
  // memory, so the two subscriptions' notifications need not interleave in order.
  while (!saw_summary) {
    auto n = socket.next_notification(std::chrono::seconds(10));
    ASSERT_TRUE(n) << "no run.summary notification";
    ASSERT_NE(n->at("method").as_string(), "events.closed") << json::serialize(*n);
    saw_summary = n->at("method").as_string() == "run.summary";
  }
  auto bad = socket.call("events.subscribe", json::object{{"channel", "run_timeline"}, {"runId", "zzzzzzzzzz"}});
  EXPECT_EQ(bad.at("error").at("data").at("code").as_string(), "NOT_FOUND");
  auto gone = socket.call("events.unsubscribe", json::object{{"subscriptionId", sub}});
  EXPECT_TRUE(result_of(gone).at("unsubscribed").as_bool());
}

TEST_F(WsTest, OversizedMessagesCloseTheConnection) {
  auto socket = ws();
  // The daemon may close while the frame is still being written (the send then fails
  // with a reset) or right after (the next read sees the close): either way it ends.
  EXPECT_THROW(
      {
        socket.send_text(std::string(2 * 1024 * 1024, 'x'));
        for (int i = 0; i < 10; ++i) socket.receive(std::chrono::seconds(5));
      },
      std::exception);
  EXPECT_EQ(client().get("/api/daemon").status, 200);
}

}  // namespace
}  // namespace agentry::integration
