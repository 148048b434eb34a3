// agent-runner's HTTP API and WebSocket methods on the compat listener, as its clients
// call them: its paths and parameter names, its answers ({run}, {result: {..., changed}},
// {history}, {daemon}), its error envelope, and each DTO checked against its schema
// (tests/unit/api/compat/ref_schema_checks.hpp).
#include "daemon_fixture.hpp"

#include "support/ws_client.hpp"
#include "unit/api/compat/ref_schema_checks.hpp"

#include <cstdlib>

namespace agentry::integration {
namespace {
namespace json = boost::json;
namespace checks = agentry::api::compat::testing;
using namespace std::chrono_literals;

class CompatApiTest : public DaemonTest {
 protected:
  void SetUp() override {
    daemon_env_.emplace_back("AGENTRY_COMPAT_LISTEN", "ws://127.0.0.1:0/");
    DaemonTest::SetUp();
  }
  test::HttpClient compat() const { return daemon_->compat_client(); }
  json::object ok(const test::HttpResponse& r) {
    EXPECT_EQ(r.status, 200) << r.body;
    auto v = json::parse(r.body);
    EXPECT_TRUE(v.is_object()) << r.body;
    return v.is_object() ? v.as_object() : json::object{};
  }
  json::object error_of(const test::HttpResponse& r) { return json::parse(r.body).at("error").as_object(); }
  json::object get(const std::string& path) { return ok(compat().get(path)); }
  json::object post(const std::string& path, const json::value& body) { return ok(compat().post_json(path, body)); }
};

TEST_F(CompatApiTest, DaemonInfoNamesTheCompatListener) {
  auto daemon = get("/api/daemon").at("daemon").as_object();
  EXPECT_TRUE(checks::check_daemon_info(daemon).empty()) << checks::describe(checks::check_daemon_info(daemon)) << json::serialize(daemon);
  EXPECT_EQ(daemon.at("listenUrl").as_string(), "ws://127.0.0.1:" + std::to_string(daemon_->compat_port()) + "/");
}

TEST_F(CompatApiTest, ListAndDetailPassTheirSchemasForAnInitializedRun) {
  const auto id = create_run("dark mode");
  auto runs = get("/api/runs").at("runs").as_array();
  ASSERT_EQ(runs.size(), 1u);
  const auto& summary = runs[0].as_object();
  EXPECT_TRUE(checks::check_run_summary(summary).empty()) << checks::describe(checks::check_run_summary(summary)) << json::serialize(summary);
  EXPECT_EQ(summary.at("runId").as_string(), id);
  EXPECT_EQ(summary.at("agentName"), "worker");
  EXPECT_EQ(summary.at("tasksTotal"), 3);
  EXPECT_EQ(summary.at("scheduleState"), "none");
  EXPECT_FALSE(summary.at("startedAt").is_null());
  // The other scopes, as its query names them; more than one is refused.
  EXPECT_EQ(get("/api/runs?global=true&includeArchived=false").at("runs").as_array().size(), 1u);
  EXPECT_EQ(get("/api/runs?repo=no-such-repo").at("runs").as_array().size(), 0u);
  auto two = compat().get("/api/runs?global=true&runGroupId=g");
  EXPECT_EQ(two.status, 400);
  EXPECT_EQ(error_of(two).at("code"), "INVALID_REQUEST");

  auto detail = get("/api/runs/" + id).at("run").as_object();
  EXPECT_TRUE(checks::check_run_detail(detail).empty()) << checks::describe(checks::check_run_detail(detail)) << json::serialize(detail);
  EXPECT_EQ(detail.at("agent").at("name"), "worker");
  EXPECT_TRUE(detail.at("exitCode").is_null());
  EXPECT_EQ(detail.at("tasks").as_array().size(), 3u);
  auto missing = compat().get("/api/runs/r_nosuchrun1");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(error_of(missing).at("code"), "NOT_FOUND");
}

TEST_F(CompatApiTest, SettingsAnswerChangedAndOnlyChangeOnce) {
  const auto id = create_run();
  auto pinned = post("/api/runs/" + id + "/pinned", json::object{{"pinned", true}}).at("result").as_object();
  EXPECT_EQ(pinned.at("pinned"), true);
  EXPECT_EQ(pinned.at("changed"), true);
  EXPECT_EQ(post("/api/runs/" + id + "/pinned", json::object{{"pinned", true}}).at("result").at("changed"), false);
  auto note = post("/api/runs/" + id + "/note", json::object{{"note", "look at this"}}).at("result").as_object();
  EXPECT_EQ(note.at("note"), "look at this");
  EXPECT_EQ(note.at("changed"), true);
  auto name = post("/api/runs/" + id + "/name", json::object{{"name", "nightly"}}).at("result").as_object();
  EXPECT_EQ(name.at("name"), "nightly");
  // Archive twice: ours refuses the second, theirs answers unchanged.
  auto archived = post("/api/runs/" + id + "/archive", json::object{}).at("result").as_object();
  EXPECT_EQ(archived.at("changed"), true);
  EXPECT_FALSE(archived.at("archivedAt").is_null());
  EXPECT_EQ(post("/api/runs/" + id + "/archive", json::object{}).at("result").at("changed"), false);
  EXPECT_EQ(post("/api/runs/" + id + "/unarchive", json::object{}).at("result").at("changed"), true);
  auto group = post("/api/runs/" + id + "/group", json::object{{"runGroupId", "batch-7"}}).at("result").as_object();
  EXPECT_EQ(group.at("runGroupId"), "batch-7");
  EXPECT_EQ(group.at("changed"), true);
  // An unknown key is theirs to refuse too.
  auto bad = compat().post_json("/api/runs/" + id + "/pinned", json::object{{"pinned", true}, {"extra", 1}});
  EXPECT_EQ(bad.status, 400) << bad.body;
}

TEST_F(CompatApiTest, TasksAndAuditHistoryInTheirShapes) {
  const auto id = create_run();
  auto tasks = get("/api/runs/" + id + "/tasks").at("tasks").as_array();
  ASSERT_EQ(tasks.size(), 3u);
  const std::string task_id(tasks[0].at("id").as_string());
  auto patched = ok(compat().patch_json("/api/runs/" + id + "/tasks/" + task_id, json::object{{"status", "in_progress"}}));
  EXPECT_EQ(patched.at("task").at("status"), "in_progress");
  auto added = post("/api/runs/" + id + "/tasks", json::object{{"title", "Write docs"}}).at("task").as_object();
  EXPECT_EQ(added.at("title"), "Write docs");

  auto history = get("/api/runs/" + id + "/audit").at("history").as_object();
  EXPECT_TRUE(checks::check_audit_history(history).empty()) << checks::describe(checks::check_audit_history(history));
  const auto& events = history.at("events").as_array();
  ASSERT_GE(events.size(), 3u);
  std::int64_t expected = 1;
  for (const auto& e : events) EXPECT_EQ(e.at("cursor").as_int64(), expected++);
  EXPECT_EQ(events[0].at("event").at("type"), "run.created");
  EXPECT_EQ(history.at("lastCursor").as_int64(), expected - 1);
  auto newest = get("/api/runs/" + id + "/audit?limit=1").at("history").as_object();
  ASSERT_EQ(newest.at("events").as_array().size(), 1u);
  EXPECT_EQ(newest.at("events").as_array()[0].at("cursor").as_int64(), expected - 1);
}

TEST_F(CompatApiTest, DefinitionsListTheBuiltInDirectLauncherAndWorkspaceDiffsFollowTheirRules) {
  auto launchers = get("/api/launchers").at("launchers").as_object();
  EXPECT_TRUE(checks::check_definition_list(launchers).empty()) << checks::describe(checks::check_definition_list(launchers));
  bool direct = false;
  for (const auto& e : launchers.at("entries").as_array())
    if (e.at("name") == "direct" && e.at("root") == "builtin") direct = true;
  EXPECT_TRUE(direct) << json::serialize(launchers);
  auto agents = get("/api/agents").at("agents").as_object();
  EXPECT_EQ(agents.at("kind"), "agent");

  const auto id = create_run();
  auto no_mode = compat().get("/api/runs/" + id + "/workspace/diff");
  EXPECT_EQ(no_mode.status, 400) << no_mode.body;
  auto half_branch = compat().get("/api/runs/" + id + "/workspace/diff?mode=branch&base=main");
  EXPECT_EQ(half_branch.status, 400) << half_branch.body;
}

TEST_F(CompatApiTest, WebSocketMethodsTakeTargetAndATimelineSubscriptionSeesTheEnd) {
  write_agent("talker", "mock", "{steps: [{say: \"all done\", deltas: 2}]}");
  test::WsClient ws("127.0.0.1", daemon_->compat_port());
  auto info = ws.call("daemon.info", json::object{});
  ASSERT_TRUE(info.contains("result")) << json::serialize(info);
  EXPECT_TRUE(info.at("result").as_object().contains("daemonInstanceId")) << "unwrapped, as there";

  const auto id = start_agent_run("talker", "finish quickly");
  ASSERT_EQ(wait_until_settled(id), "success");
  auto got = ws.call("runs.get", json::object{{"target", id}});
  ASSERT_TRUE(got.contains("result")) << json::serialize(got);
  EXPECT_EQ(got.at("result").at("run").at("status"), "success");
  EXPECT_EQ(got.at("result").at("run").at("exitCode"), 0);
  auto list = ws.call("runs.list", json::object{{"scope", json::object{{"kind", "global"}}}});
  ASSERT_TRUE(list.contains("result")) << json::serialize(list);
  EXPECT_EQ(list.at("result").at("runs").as_array().size(), 1u);

  // Subscribed after the run ended (as its CLI does after `runs.start`): run_finished comes.
  auto sub = ws.call("events.subscribe", json::object{{"channel", "run_timeline"}, {"runId", id}});
  ASSERT_TRUE(sub.contains("result")) << json::serialize(sub);
  std::int64_t expected = 1;
  for (;;) {
    auto n = ws.next_notification(10s);
    ASSERT_TRUE(n) << "no run_finished notification";
    ASSERT_EQ(n->at("method"), "run.timeline") << json::serialize(*n);
    const auto& params = n->at("params").as_object();
    EXPECT_EQ(params.at("cursor").as_int64(), expected++);
    EXPECT_EQ(params.at("runId").as_string(), id);
    if (params.at("event").at("type") == "run_finished") {
      EXPECT_EQ(params.at("event").at("summary").at("status"), "success");
      break;
    }
  }
  // Errors are theirs: a known refusal is -32003 with a message and no data.
  auto missing = ws.call("runs.get", json::object{{"target", "r_nosuchrun1"}});
  ASSERT_TRUE(missing.contains("error")) << json::serialize(missing);
  EXPECT_EQ(missing.at("error").at("code"), -32003);
  EXPECT_FALSE(missing.at("error").as_object().contains("data"));
}

TEST_F(CompatApiTest, TheInputSurfaceOfItsNewRunFormAndAWebStartWithoutACwd) {
  auto surface = get("/api/run-input-surface?agent=worker&assignment=feature").at("inputSurface").as_object();
  EXPECT_TRUE(checks::check_input_surface(surface).empty()) << checks::describe(checks::check_input_surface(surface));
  const auto& inputs = surface.at("assignmentInputs").as_array();
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].at("key"), "feature");
  EXPECT_EQ(inputs[0].at("required"), true);
  for (const auto& field : surface.at("runSettings").as_array())
    if (field.at("key") == "backend") {
      EXPECT_EQ(field.at("value"), "passive");
      EXPECT_EQ(field.at("editable"), false) << "a run takes its backend from its agent here";
    }
  auto missing = compat().get("/api/run-input-surface?agent=worker");
  EXPECT_EQ(missing.status, 400) << missing.body;

  // What its form sends: no cwd at all; the run gets the daemon's default.
  auto started = post("/api/runs", json::object{{"agent", "worker"},
                                                {"assignment", "feature"},
                                                {"webVars", json::object{{"feature", "search"}}},
                                                {"overrides", json::object{{"name", "from the form"}}}});
  const std::string id(started.at("runId").as_string());
  EXPECT_EQ(started.size(), 1u) << "{runId} only";
  auto run = get("/api/runs/" + id).at("run").as_object();
  EXPECT_EQ(run.at("name"), "from the form");
  EXPECT_FALSE(run.at("cwd").as_string().empty());
  // Another backend than the agent's needs the agent's consent: refused, saying how to give it.
  auto backend = compat().post_json("/api/runs/init", json::object{{"agent", "worker"},
                                                                    {"webVars", json::object{}},
                                                                    {"overrides", json::object{{"backend", "mock"}, {"message", "m"}}}});
  EXPECT_EQ(backend.status, 409) << backend.body;
  EXPECT_EQ(error_of(backend).at("code"), "CONFLICT");
  EXPECT_NE(backend.body.find("unlockedFields: [backend]"), std::string::npos) << backend.body;
}

// Their start without an agent (an ad-hoc agent on the backend it names) and the
// backend/unrestricted overrides, where the agent unlocks them, are ours.
TEST_F(CompatApiTest, AdHocAgentsAndUnlockedBackendOverridesStartRuns) {
  test::WsClient ws("127.0.0.1", daemon_->compat_port());
  auto init = ws.call("runs.init", json::object{{"cliVars", json::object{}},
                                                {"callerCwd", work_.string()},
                                                {"overrides", json::object{{"backend", "passive"},
                                                                           {"unrestricted", false},
                                                                           {"message", "wait for me"}}}});
  ASSERT_TRUE(init.contains("result")) << json::serialize(init);
  const auto& run = init.at("result").at("run").as_object();
  EXPECT_TRUE(checks::check_run_detail(run).empty()) << checks::describe(checks::check_run_detail(run));
  EXPECT_EQ(run.at("agent"), (json::object{{"name", "ad-hoc"}, {"sourcePath", nullptr}}));
  EXPECT_EQ(run.at("backend"), "passive");
  EXPECT_EQ(run.at("unrestricted"), false);
  EXPECT_EQ(run.at("timeoutSec"), 3600);

  auto started = post("/api/runs", json::object{{"webVars", json::object{}},
                                                {"overrides", json::object{{"backend", "mock"}, {"message", "hello"}}}});
  const std::string id(started.at("runId").as_string());
  ASSERT_EQ(wait_until_settled(id), "success");
  EXPECT_EQ(get("/api/runs/" + id).at("run").at("agent").at("name"), "ad-hoc");

  auto neither = compat().post_json("/api/runs", json::object{{"webVars", json::object{}},
                                                              {"overrides", json::object{{"message", "hello"}}}});
  EXPECT_EQ(neither.status, 400) << neither.body;
  EXPECT_NE(neither.body.find("'agent'"), std::string::npos) << neither.body;
  auto unknown = compat().post_json("/api/runs", json::object{{"webVars", json::object{}},
                                                              {"overrides", json::object{{"backend", "nope"}, {"message", "x"}}}});
  EXPECT_EQ(unknown.status, 422) << unknown.body;
  EXPECT_NE(unknown.body.find("overrides.backend"), std::string::npos) << unknown.body;

  // An agent that unlocks them: its form offers the backends, and a start may use them.
  write_agent("open", "mock", "{steps: [{say: hi}]}", "unrestricted: false\nunlockedFields: [backend, unrestricted]\n");
  auto surface = get("/api/run-input-surface?agent=open&assignment=feature").at("inputSurface").as_object();
  EXPECT_TRUE(checks::check_input_surface(surface).empty()) << checks::describe(checks::check_input_surface(surface));
  for (const auto& field : surface.at("runSettings").as_array()) {
    if (field.at("key") == "backend") {
      EXPECT_EQ(field.at("editable"), true) << json::serialize(field);
      const auto& values = field.at("enumValues").as_array();
      EXPECT_EQ(values.at(0), "mock") << "the agent's own first";
      EXPECT_NE(std::find(values.begin(), values.end(), json::value("passive")), values.end()) << json::serialize(field);
    }
    if (field.at("key") == "unrestricted") {
      EXPECT_EQ(field.at("editable"), true) << json::serialize(field);
    }
  }
  auto open = ok(compat().post_json("/api/runs/init", json::object{{"agent", "open"},
                                                                   {"webVars", json::object{}},
                                                                   {"overrides", json::object{{"backend", "passive"},
                                                                                              {"unrestricted", true},
                                                                                              {"message", "m"}}}}));
  EXPECT_EQ(open.at("run").at("backend"), "passive");
  EXPECT_EQ(open.at("run").at("unrestricted"), true);
}

// R15: their environments.list shows ours by name; a detail cannot be theirs, and says so.
TEST_F(CompatApiTest, EnvironmentsAreListedAndTheirDetailIsRefusedWithTheReason) {
  dir_.write_file("config/environments/confined.yaml", "schemaVersion: 1\nkind: bubblewrap\n");
  test::WsClient ws("127.0.0.1", daemon_->compat_port());
  auto listed = ws.call("environments.list", json::object{});
  ASSERT_TRUE(listed.contains("result")) << json::serialize(listed);
  const auto& list = listed.at("result").at("environments").as_object();
  EXPECT_TRUE(checks::check_definition_list(list).empty()) << checks::describe(checks::check_definition_list(list));
  EXPECT_EQ(list.at("kind"), "environment");
  ASSERT_EQ(list.at("entries").as_array().size(), 1u) << json::serialize(list);
  EXPECT_EQ(list.at("entries").at(0).at("name"), "confined");
  EXPECT_EQ(get("/api/environments").at("environments").at("entries").as_array().size(), 1u);

  auto detail = ws.call("environments.get", json::object{{"target", "confined"}});
  ASSERT_TRUE(detail.contains("error")) << json::serialize(detail);
  EXPECT_EQ(detail.at("error").at("code"), -32003);
  EXPECT_NE(json::serialize(detail).find("another schema"), std::string::npos) << json::serialize(detail);
  auto over_http = compat().get("/api/environments/confined");
  EXPECT_EQ(over_http.status, 409) << over_http.body;
  EXPECT_EQ(error_of(over_http).at("code"), "CONFLICT");
}

// init with runId (their `init --run-id`): the initialized run read again from its
// definitions as they are now, over HTTP (the web form's vars) and WebSocket (the CLI's).
TEST_F(CompatApiTest, InitWithRunIdReinitializesTheRunFromItsEditedDefinitions) {
  const auto id = create_run("dark mode");
  write_assignment("feature", R"(message: "Ship {{feature}} today."
vars:
  feature:
    type: string
    required: true
tasks:
  - id: plan
    title: Plan {{feature}}
  - id: docs
    title: Document {{feature}}
)");
  auto detail = post("/api/runs/init", json::object{{"runId", id},
                                                    {"agent", "worker"},
                                                    {"assignment", "feature"},
                                                    {"webVars", json::object{{"feature", "search"}}}})
                    .at("run")
                    .as_object();
  EXPECT_TRUE(checks::check_run_detail(detail).empty()) << checks::describe(checks::check_run_detail(detail)) << json::serialize(detail);
  EXPECT_EQ(detail.at("runId").as_string(), id);
  EXPECT_EQ(detail.at("status"), "initialized");
  ASSERT_EQ(detail.at("tasks").as_array().size(), 2u);
  EXPECT_EQ(detail.at("tasks").at(1).at("title"), "Document search");
  EXPECT_EQ(get("/api/runs").at("runs").as_array().size(), 1u) << "the same run, not a new one";

  test::WsClient ws("127.0.0.1", daemon_->compat_port());
  auto again = ws.call("runs.init", json::object{{"runId", id},
                                                 {"agent", "worker"},
                                                 {"assignment", "feature"},
                                                 {"callerCwd", work_.string()},
                                                 {"definitionCwd", work_.string()},
                                                 {"cliVars", json::object{{"feature", "export"}}}});
  ASSERT_TRUE(again.contains("result")) << json::serialize(again);
  const auto& run = again.at("result").at("run").as_object();
  EXPECT_TRUE(checks::check_run_detail(run).empty()) << checks::describe(checks::check_run_detail(run));
  EXPECT_EQ(run.at("runId").as_string(), id);
  EXPECT_EQ(run.at("tasks").at(0).at("title"), "Plan export");

  // Their start has no use for runId; a run past initialized is refused, naming its status.
  auto start = compat().post_json("/api/runs", json::object{{"runId", id}, {"agent", "worker"}, {"webVars", json::object{}}});
  EXPECT_EQ(start.status, 400) << start.body;
  EXPECT_NE(start.body.find("runId"), std::string::npos) << start.body;
  ASSERT_EQ(compat().post_json("/api/runs/" + id + "/ready", json::object{}).status, 200);
  auto refused = compat().post_json("/api/runs/init", json::object{{"runId", id}, {"agent", "worker"}, {"webVars", json::object{}}});
  EXPECT_GE(refused.status, 400) << refused.body;
  EXPECT_NE(refused.body.find("this run is ready"), std::string::npos) << refused.body;
}

TEST_F(CompatApiTest, SchedulesNestOverWebSocketAndContainerMethodsSayWhyNot) {
  const auto id = create_run();
  test::WsClient ws("127.0.0.1", daemon_->compat_port());
  auto set = ws.call("runs.setSchedule", json::object{{"target", id}, {"schedule", json::object{{"delay", "30m"}}}});
  ASSERT_TRUE(set.contains("result")) << json::serialize(set);
  const auto& run = set.at("result").at("run").as_object();
  EXPECT_EQ(run.at("scheduleState"), "future");
  EXPECT_EQ(run.at("schedule").at("enabled"), true);
  EXPECT_TRUE(checks::check_schedule(run.at("schedule")).empty()) << checks::describe(checks::check_schedule(run.at("schedule")));
  auto paused = ws.call("runs.disableSchedule", json::object{{"target", id}});
  EXPECT_EQ(paused.at("result").at("run").at("scheduleState"), "paused");
  // Over HTTP, ready only promotes, as there.
  auto http_ready = compat().post_json("/api/runs/" + id + "/ready", json::object{{"schedule", json::object{{"delay", "1h"}}}});
  EXPECT_EQ(http_ready.status, 400) << http_ready.body;

  auto environment = ws.call("runs.environment.status", json::object{{"target", id}});
  ASSERT_TRUE(environment.contains("error")) << json::serialize(environment);
  EXPECT_EQ(environment.at("error").at("code"), -32003);
  EXPECT_NE(json::serialize(environment).find("agentry environments"), std::string::npos);
  auto unknown = ws.call("runs.nonsense", json::object{});
  EXPECT_EQ(unknown.at("error").at("code"), -32601);
}

TEST_F(CompatApiTest, HookStateIsWhatTheRunsModuleHooksKeep) {
  write_agent("talker", "mock", "{steps: [{say: done}]}");
  dir_.write_file("config/hooks/keeper/hook.mjs",
                  "export default { name: 'keeper', beforeAttempt(ctx) {"
                  " return { action: 'continue', mutate: { state: { seen: (ctx.state.seen ?? 0) + 1 } } }; } };\n");
  write_assignment("kept", "hooks:\n  beforeAttempt:\n    - name: keeper\n");
  auto started = post("/api/runs", json::object{{"agent", "talker"}, {"assignment", "kept"}, {"webVars", json::object{}}});
  const std::string id(started.at("runId").as_string());
  ASSERT_EQ(wait_until_settled(id), "success");
  auto run = get("/api/runs/" + id).at("run").as_object();
  EXPECT_TRUE(checks::check_run_detail(run).empty()) << checks::describe(checks::check_run_detail(run));
  EXPECT_EQ(run.at("hookState"), (json::object{{"seen", 1}})) << json::serialize(run);
  const auto& hooks = run.at("resolvedHooks").as_array();
  ASSERT_EQ(hooks.size(), 1u);
  EXPECT_EQ(hooks[0].at("source"), (json::object{{"name", "keeper"}})) << json::serialize(hooks[0]);
}

// Their init runs module prepare hooks before the run is written (off the request
// workers), also when it adds tasks after our init; a blocking hook leaves nothing.
TEST_F(CompatApiTest, InitRunsModulePrepareHooksBeforeTheRunIsWritten) {
  if (std::system("node --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "node is not on PATH";
  dir_.write_file("config/hooks/namer/hook.mjs",
                  "export default { name: 'namer', prepare(ctx) {"
                  " if (ctx.vars.topic === 'no') return { action: 'block', reason: 'not that topic' };"
                  " return { action: 'continue', mutate: { vars: { title: 'About ' + ctx.vars.topic } } }; } };\n");
  write_assignment("named", "vars:\n  topic: {type: string, required: true}\n"
                            "  title: {type: string, required: true, requiredAt: prepare}\n"
                            "message: '{{title}}'\nhooks:\n  prepare: [{name: namer}]\n");
  auto created = post("/api/runs/init", json::object{{"agent", "worker"},
                                                     {"assignment", "named"},
                                                     {"webVars", json::object{{"topic", "tides"}}},
                                                     {"overrides", json::object{{"addedTasks", json::array{"extra"}}}}});
  auto run = created.at("run").as_object();
  EXPECT_TRUE(checks::check_run_detail(run).empty()) << checks::describe(checks::check_run_detail(run));
  EXPECT_EQ(run.at("message"), "About tides") << json::serialize(run);
  EXPECT_EQ(run.at("tasks").as_array().size(), 1u) << json::serialize(run.at("tasks"));

  auto blocked = compat().post_json("/api/runs/init", json::object{{"agent", "worker"},
                                                                   {"assignment", "named"},
                                                                   {"webVars", json::object{{"topic", "no"}}}});
  EXPECT_NE(blocked.status, 200) << blocked.body;
  EXPECT_NE(blocked.body.find("prepare hook 'prepare-0' (name:namer) blocked: not that topic"), std::string::npos)
      << blocked.body;
  EXPECT_EQ(get("/api/runs?global=true").at("runs").as_array().size(), 1u);
}

TEST_F(CompatApiTest, AttachmentsTakeItsHeaderAndAnswerItsShapes) {
  const auto id = create_run();
  const std::string bytes = "line one\nline two\n";
  auto missing_name = compat().post("/api/runs/" + id + "/attachments", bytes, {}, "text/plain");
  EXPECT_EQ(missing_name.status, 400) << missing_name.body;
  auto up = compat().post("/api/runs/" + id + "/attachments", bytes,
                          {{"x-agent-runner-attachment-name", "notes%20v1.txt"}}, "text/plain");
  auto uploaded = ok(up).at("attachment").as_object();
  EXPECT_TRUE(checks::check_attachment(uploaded).empty()) << checks::describe(checks::check_attachment(uploaded));
  EXPECT_EQ(uploaded.at("name"), "notes v1.txt");
  EXPECT_EQ(uploaded.at("mimeType"), "text/plain");
  const std::string attachment_id(uploaded.at("id").as_string());

  auto list = get("/api/runs/" + id + "/attachments").at("attachments").as_array();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].at("ownerRunId").as_string(), id);
  auto content = compat().get("/api/runs/" + id + "/attachments/" + attachment_id + "/content");
  ASSERT_EQ(content.status, 200);
  EXPECT_EQ(content.body, bytes);
  EXPECT_EQ(content.header("x-agent-runner-attachment-id"), attachment_id);
  EXPECT_EQ(content.header("x-agent-runner-sha256"), uploaded.at("sha256").as_string());

  auto removed = ok(compat().del("/api/runs/" + id + "/attachments/" + attachment_id)).at("result").as_object();
  EXPECT_EQ(removed.at("changed"), true);
  EXPECT_EQ(removed.at("attachmentId").as_string(), attachment_id);
}

TEST_F(CompatApiTest, AWebSocketDownloadAnswersInItsShapesThenSendsTheData) {
  const auto id = create_run();
  auto up = compat().post("/api/runs/" + id + "/attachments", "abc", {{"x-agent-runner-attachment-name", "a.txt"}},
                          "text/plain");
  const std::string attachment_id(ok(up).at("attachment").at("id").as_string());
  test::WsClient ws("127.0.0.1", daemon_->compat_port());
  auto opened = ws.call("attachments.download", json::object{{"runId", id}, {"attachmentId", attachment_id}});
  ASSERT_TRUE(opened.contains("result")) << json::serialize(opened);
  const auto& result = opened.at("result").as_object();
  EXPECT_EQ(result.at("maxChunkBytes"), 65536);
  EXPECT_EQ(result.at("attachment").at("name"), "a.txt");
  // After the answer (checked by hand with its CLI: its client takes the data only once
  // the answer's promise has settled, which the daemon's short hold gives it).
  auto data = ws.next_notification(5s);
  ASSERT_TRUE(data);
  EXPECT_EQ(data->at("method"), "stream.data");
  EXPECT_EQ(data->at("params").at("streamId"), result.at("streamId"));
  auto listed = ws.call("attachments.list", json::object{{"runId", id}});
  ASSERT_TRUE(listed.contains("result")) << json::serialize(listed);
  EXPECT_EQ(listed.at("result").at("attachments").as_array().size(), 1u);
}

}  // namespace
}  // namespace agentry::integration
