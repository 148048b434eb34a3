// Run dependencies over the real daemon: the reference's routes (add, remove, clear)
// and their WebSocket methods, the refusals (self, duplicate, cycle through a group,
// a started run), the start gate, the daemon starting a ready run once everything it
// waits on has succeeded (after a completion, and in the startup sweep), and the
// projections (dependencyState, dependencies, dependents, the summary stream).
#include "daemon_fixture.hpp"
#include "support/test_store.hpp"
#include "support/ws_client.hpp"


#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;

class DependenciesTest : public DaemonTest {
 protected:
  test::WsClient ws() { return test::WsClient("127.0.0.1", daemon_->port()); }

  std::string base(const std::string& id) { return "/api/runs/" + id + "/dependencies"; }

  test::HttpResponse add(const std::string& id, const json::object& dependency) {
    return client().post_json(base(id), dependency);
  }
  static json::object on_run(const std::string& id) { return {{"type", "run"}, {"runId", id}}; }
  static json::object on_group(const std::string& id) { return {{"type", "group"}, {"groupId", id}}; }

  void complete_tasks(const std::string& id) {
    for (const char* task : {"plan", "build", "review%2Fcheck"}) {
      auto r = client().patch_json("/api/runs/" + id + "/tasks/" + task, json::object{{"status", "completed"}});
      ASSERT_EQ(r.status, 200) << r.body;
    }
  }
  std::string start(const std::string& id) {
    auto r = client().post_json("/api/runs/" + id + "/resume", json::object{});
    EXPECT_EQ(r.status, 200) << r.body;
    return std::string(r.json().at("run").at("status").as_string());
  }
  /// Polls until the run has `status` (the daemon starts waiting runs asynchronously).
  bool eventually_status(const std::string& id, const std::string& status,
                         std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (run_status(id) == status) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  std::vector<json::object> audit(const std::string& id) {
    auto r = client().get("/api/runs/" + id + "/audit");
    EXPECT_EQ(r.status, 200) << r.body;
    std::vector<json::object> out;
    const auto body = r.json();
    for (const auto& e : body.at("events").as_array()) out.push_back(e.as_object());
    return out;
  }
  int count_type(const std::string& id, const std::string& type) {
    int n = 0;
    for (const auto& e : audit(id))
      if (e.at("type") == json::value(type)) ++n;
    return n;
  }
  json::object summary_of(const std::string& id) {
    auto list = client().get("/api/runs?global=true").json();
    for (const auto& s : list.at("runs").as_array())
      if (s.at("runId") == json::value(id)) return s.as_object();
    ADD_FAILURE() << "run " << id << " not listed";
    return {};
  }
};

TEST_F(DependenciesTest, AddRemoveAndClearThroughTheReferenceRoutes) {
  auto a = create_run("a");
  auto b = create_run("b");
  auto added = add(b, on_run(a));
  ASSERT_EQ(added.status, 200) << added.body;
  auto run = added.json().at("run").as_object();
  ASSERT_EQ(run.at("dependencies").as_array().size(), 1u);
  const auto& dep = run.at("dependencies").at(0).as_object();
  EXPECT_EQ(dep.at("type"), "run");
  EXPECT_EQ(dep.at("runId"), json::value(a));
  EXPECT_FALSE(dep.at("satisfied").as_bool());
  EXPECT_EQ(dep.at("status"), "initialized");
  EXPECT_EQ(json::serialize(run.at("dependencyState")), R"({"state":"waiting","total":1,"satisfied":0})");

  // A group with no runs yet, and a run that does not exist: accepted, unmet.
  ASSERT_EQ(add(b, on_group("later")).status, 200);
  ASSERT_EQ(add(b, on_run("nosuchrun0")).status, 200);
  run = get_run(b);
  EXPECT_EQ(run.at("dependencyState").at("total").as_int64(), 3);
  EXPECT_TRUE(run.at("dependencies").at(1).at("missing").as_bool());
  EXPECT_TRUE(run.at("dependencies").at(2).at("missing").as_bool());
  // The dependency's side: who waits on it.
  auto dependents = get_run(a).at("dependents").as_array();
  ASSERT_EQ(dependents.size(), 1u);
  EXPECT_EQ(dependents.at(0).at("runId"), json::value(b));
  EXPECT_EQ(dependents.at(0).at("type"), "run");
  // Summaries carry the state.
  EXPECT_EQ(summary_of(b).at("dependencyState").at("state"), "waiting");
  EXPECT_EQ(summary_of(a).at("dependencyState").at("state"), "none");

  auto removed = client().request("DELETE", base(b), json::serialize(on_group("later")));
  ASSERT_EQ(removed.status, 200) << removed.body;
  EXPECT_EQ(removed.json().at("run").at("dependencies").as_array().size(), 2u);
  auto again = client().request("DELETE", base(b), json::serialize(on_group("later")));
  EXPECT_EQ(again.status, 404) << again.body;
  EXPECT_EQ(error_code_of(again), "NOT_FOUND");

  auto cleared = client().post_json(base(b) + "/clear", json::object{});
  ASSERT_EQ(cleared.status, 200) << cleared.body;
  EXPECT_EQ(json::serialize(cleared.json().at("run").at("dependencyState")),
            R"({"state":"none","total":0,"satisfied":0})");
  int added_n = count_type(b, "run.dependency_added"), removed_n = count_type(b, "run.dependency_removed");
  EXPECT_EQ(added_n, 3);
  EXPECT_EQ(removed_n, 1);
  EXPECT_EQ(count_type(b, "run.dependencies_cleared"), 1);
}

TEST_F(DependenciesTest, RefusalsAreClearAndChangeNothing) {
  auto a = create_run("a");
  auto b = create_run("b");
  auto c = create_run("c");

  auto self = add(a, on_run(a));
  EXPECT_EQ(self.status, 422) << self.body;
  EXPECT_EQ(error_code_of(self), "CONFLICT");
  EXPECT_NE(self.body.find("cannot depend on itself"), std::string::npos) << self.body;

  ASSERT_EQ(add(b, on_run(a)).status, 200);
  auto duplicate = add(b, on_run(a));
  EXPECT_EQ(duplicate.status, 422);
  EXPECT_NE(duplicate.body.find("already depends on run:" + a), std::string::npos) << duplicate.body;

  // a -> c -> b -> a
  ASSERT_EQ(add(c, on_run(b)).status, 200);
  auto cycle = add(a, on_run(c));
  EXPECT_EQ(cycle.status, 422) << cycle.body;
  EXPECT_EQ(error_code_of(cycle), "CONFLICT");
  auto envelope = cycle.json().at("error").as_object();
  EXPECT_NE(std::string(envelope.at("message").as_string()).find(a + " -> " + c + " -> " + b + " -> " + a),
            std::string::npos)
      << envelope.at("message");
  EXPECT_EQ(envelope.at("details").at("reason"), "cycle");

  // Group membership counts: a run waiting on its own group waits on itself, and so
  // does b once a (which waits on nothing) ... joins a group b's dependency c waits on.
  ASSERT_EQ(client().post_json("/api/runs/" + a + "/group", json::object{{"runGroupId", "wave"}}).status, 200);
  auto own_group = add(a, on_group("wave"));
  EXPECT_EQ(own_group.status, 422) << own_group.body;
  EXPECT_NE(own_group.body.find("group:wave (" + a + ")"), std::string::npos) << own_group.body;
  // a waits on group "later"; moving c (which waits, through b, on a) into it closes a cycle.
  ASSERT_EQ(add(a, on_group("later")).status, 200);
  auto move = client().post_json("/api/runs/" + c + "/group", json::object{{"runGroupId", "later"}});
  EXPECT_EQ(move.status, 422) << move.body;
  EXPECT_EQ(get_run(c).at("runGroupId"), json::value(c));

  // Malformed bodies are 400; an unknown run 404.
  EXPECT_EQ(add(a, json::object{{"type", "task"}, {"runId", b}}).status, 400);
  EXPECT_EQ(add(a, json::object{{"type", "run"}}).status, 400);
  EXPECT_EQ(add(a, json::object{{"type", "run"}, {"groupId", "g"}}).status, 400);
  EXPECT_EQ(add("zzzzzzzzzz", on_run(a)).status, 404);

  // Only while initialized or ready.
  ASSERT_EQ(client().post_json(base(c) + "/clear", json::object{}).status, 200);
  EXPECT_EQ(start(c), "running");
  auto started = add(c, on_run(a));
  EXPECT_EQ(started.status, 422) << started.body;
  EXPECT_NE(started.body.find("only while the run is initialized or ready"), std::string::npos) << started.body;
  EXPECT_EQ(client().post_json(base(c) + "/clear", json::object{}).status, 422);
}

TEST_F(DependenciesTest, StartAndResumeAreRefusedNamingWhatIsUnmet) {
  auto a = create_run("a");
  auto b = create_run("b");
  ASSERT_EQ(add(b, on_run(a)).status, 200);
  ASSERT_EQ(add(b, on_group("wave")).status, 200);
  auto refused = client().post_json("/api/runs/" + b + "/resume", json::object{});
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_EQ(error_code_of(refused), "CONFLICT");
  auto message = std::string(refused.json().at("error").at("message").as_string());
  EXPECT_NE(message.find("run:" + a + " (initialized)"), std::string::npos) << message;
  EXPECT_NE(message.find("group:wave (no runs in it)"), std::string::npos) << message;
  EXPECT_EQ(run_status(b), "initialized");
  EXPECT_FALSE(get_run(b).at("capabilities").at("canResume").as_bool());
  EXPECT_TRUE(get_run(b).at("capabilities").at("canEditDependencies").as_bool());

  // Met: a has ended success, the group's every non-archived member too.
  ASSERT_EQ(client().post_json("/api/runs/" + a + "/group", json::object{{"runGroupId", "wave"}}).status, 200);
  auto other = create_run("other");
  ASSERT_EQ(client().post_json("/api/runs/" + other + "/group", json::object{{"runGroupId", "wave"}}).status, 200);
  EXPECT_EQ(start(a), "running");
  complete_tasks(a);
  EXPECT_EQ(run_status(a), "success");
  auto partly = get_run(b).at("dependencies").at(1).as_object();
  EXPECT_EQ(partly.at("members").as_int64(), 2);
  EXPECT_EQ(partly.at("succeeded").as_int64(), 1);
  EXPECT_EQ(partly.at("archivedExcluded").as_int64(), 0);
  EXPECT_EQ(client().post_json("/api/runs/" + b + "/resume", json::object{}).status, 422);
  // An archived member no longer counts.
  ASSERT_EQ(client().post_json("/api/runs/" + other + "/archive", json::object{}).status, 200);
  auto without = get_run(b).at("dependencies").at(1).as_object();
  EXPECT_EQ(without.at("members").as_int64(), 1);
  EXPECT_EQ(without.at("archivedExcluded").as_int64(), 1);
  EXPECT_EQ(get_run(b).at("dependencyState").at("state"), "satisfied");
  EXPECT_TRUE(get_run(b).at("capabilities").at("canResume").as_bool());
  EXPECT_EQ(start(b), "running");
  EXPECT_FALSE(get_run(b).at("capabilities").at("canEditDependencies").as_bool());
}

TEST_F(DependenciesTest, TheDaemonStartsAReadyRunOnceItsDependenciesSucceed) {
  auto a = create_run("a", /*start=*/true);
  auto b = create_run("b");
  auto waiting = create_run("not ready");  // initialized: never started by the daemon
  ASSERT_EQ(add(b, on_run(a)).status, 200);
  ASSERT_EQ(add(waiting, on_run(a)).status, 200);
  ASSERT_EQ(client().post_json("/api/runs/" + b + "/ready", json::object{}).status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(run_status(b), "ready");  // a is still running

  complete_tasks(a);
  ASSERT_TRUE(eventually_status(b, "running")) << run_status(b);
  EXPECT_EQ(run_status(waiting), "initialized");
  json::object started;
  for (const auto& e : audit(b))
    if (e.at("type") == "run.started") started = e;
  ASSERT_FALSE(started.empty());
  EXPECT_EQ(started.at("actor"), "daemon");
  EXPECT_EQ(started.at("data").at("trigger"), "dependencies");

  // Once: b ends, a changes again; nothing starts b a second time.
  complete_tasks(b);
  EXPECT_EQ(run_status(b), "success");
  ASSERT_EQ(client().post_json("/api/runs/" + a + "/name", json::object{{"name", "again"}}).status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(run_status(b), "success");
  EXPECT_EQ(count_type(b, "run.started"), 1);
}

TEST_F(DependenciesTest, StartWithUnmetDependenciesWaitsReadyThenStarts) {
  auto a = create_run("a", /*start=*/true);
  json::object body{{"agent", "worker"},
                    {"assignment", "feature"},
                    {"callerCwd", work_.string()},
                    {"cliVars", {{"feature", "after"}}},
                    {"dependencies", json::array{on_run(a)}}};
  auto created = client().post_json("/api/runs", body);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string b(created.json().at("run").at("runId").as_string());
  EXPECT_EQ(created.json().at("run").at("status"), "ready");
  EXPECT_EQ(created.json().at("run").at("dependencyState").at("state"), "waiting");
  complete_tasks(a);
  EXPECT_TRUE(eventually_status(b, "running")) << run_status(b);

  // Met already: starts at once. A refused dependency creates nothing.
  body["cliVars"] = json::object{{"feature", "met"}};
  auto met = client().post_json("/api/runs", body);
  ASSERT_EQ(met.status, 201) << met.body;
  EXPECT_EQ(met.json().at("run").at("status"), "running");
  const auto before = all_run_ids().size();
  body["dependencies"] = json::array{on_run(a), on_run(a)};
  auto duplicate = client().post_json("/api/runs/init", body);
  EXPECT_EQ(duplicate.status, 422) << duplicate.body;
  body["dependencies"] = json::array{json::object{{"type", "run"}}};
  EXPECT_EQ(client().post_json("/api/runs/init", body).status, 400);
  EXPECT_EQ(all_run_ids().size(), before);
}

TEST_F(DependenciesTest, GroupDependencyStartsWhenEveryMemberSucceeded) {
  auto a1 = create_run("a1", true);
  auto a2 = create_run("a2", true);
  for (const auto& id : {a1, a2})
    ASSERT_EQ(client().post_json("/api/runs/" + id + "/group", json::object{{"runGroupId", "wave"}}).status, 200);
  auto b = create_run("b");
  ASSERT_EQ(add(b, on_group("wave")).status, 200);
  ASSERT_EQ(client().post_json("/api/runs/" + b + "/ready", json::object{}).status, 200);
  auto dependents = get_run(a1).at("dependents").as_array();
  ASSERT_EQ(dependents.size(), 1u);
  EXPECT_EQ(dependents.at(0).at("type"), "group");
  EXPECT_EQ(dependents.at(0).at("groupId"), "wave");
  complete_tasks(a1);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(run_status(b), "ready");
  complete_tasks(a2);
  EXPECT_TRUE(eventually_status(b, "running")) << run_status(b);
}

TEST_F(DependenciesTest, ArchivingOrMovingAFailedMemberLetsTheGroupsWaitersStart) {
  // The failed member leaves the group (archived, or moved to another): the runs waiting
  // on the group start at once, not at the daemon's next start.
  for (const bool archive : {true, false}) {
    SCOPED_TRACE(archive ? "archive" : "regroup");
    const std::string group = archive ? "archived-wave" : "moved-wave";
    auto good = create_run("good", true);
    auto bad = create_run("bad", true);
    for (const auto& id : {good, bad})
      ASSERT_EQ(client().post_json("/api/runs/" + id + "/group", json::object{{"runGroupId", group}}).status, 200);
    complete_tasks(good);
    ASSERT_EQ(client().patch_json("/api/runs/" + bad + "/tasks/plan", json::object{{"status", "blocked"}}).status, 200);
    ASSERT_TRUE(eventually_status(bad, "blocked")) << run_status(bad);
    auto waiter = create_run("waiter");
    ASSERT_EQ(add(waiter, on_group(group)).status, 200);
    ASSERT_EQ(client().post_json("/api/runs/" + waiter + "/ready", json::object{}).status, 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_EQ(run_status(waiter), "ready") << "a failed member keeps the group unmet";

    auto left = archive ? client().post_json("/api/runs/" + bad + "/archive", json::object{})
                        : client().post_json("/api/runs/" + bad + "/group", json::object{{"runGroupId", "elsewhere"}});
    ASSERT_EQ(left.status, 200) << left.body;
    EXPECT_TRUE(eventually_status(waiter, "running")) << run_status(waiter);
  }
}

TEST_F(DependenciesTest, ALiveBackendRunEndingStartsItsDependents) {
  write_agent("talker", "mock", "{steps: [{say: hello}]}");
  auto b = create_run("b");
  ASSERT_EQ(add(b, on_group("mockwave")).status, 200);
  ASSERT_EQ(client().post_json("/api/runs/" + b + "/ready", json::object{}).status, 200);
  auto a = client().post_json("/api/runs", json::object{{"agent", "talker"},
                                                        {"callerCwd", work_.string()},
                                                        {"runGroupId", "mockwave"},
                                                        {"overrides", {{"message", "go"}}}});
  ASSERT_EQ(a.status, 201) << a.body;
  EXPECT_EQ(wait_until_settled(std::string(a.json().at("run").at("runId").as_string())), "success");
  EXPECT_TRUE(eventually_status(b, "running")) << run_status(b);
}

TEST_F(DependenciesTest, SummaryStreamUpdatesDependentsWhenADependencyEnds) {
  auto a = create_run("a", true);
  auto b = create_run("b");  // initialized: only its projection changes
  ASSERT_EQ(add(b, on_run(a)).status, 200);
  auto socket = ws();
  auto sub = socket.call("events.subscribe", json::object{{"channel", "run_summary"}});
  ASSERT_TRUE(sub.contains("result")) << json::serialize(sub);
  complete_tasks(a);
  bool saw = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!saw && std::chrono::steady_clock::now() < deadline) {
    auto n = socket.next_notification(std::chrono::seconds(10));
    ASSERT_TRUE(n) << "no summary of the waiting run";
    if (n->at("method") != "run.summary") continue;
    const auto& params = n->at("params").as_object();
    if (params.at("type") != "summary_upsert" || params.at("summary").at("runId") != json::value(b)) continue;
    saw = params.at("summary").at("dependencyState").at("state") == "satisfied";
  }
  EXPECT_TRUE(saw);
  EXPECT_EQ(run_status(b), "initialized");
}

TEST_F(DependenciesTest, DetailStreamOfAWaitingRunIsResentWhenADependencyEnds) {
  auto a = create_run("a", true);
  auto b = create_run("b");
  ASSERT_EQ(add(b, on_run(a)).status, 200);
  auto socket = ws();
  auto sub = socket.call("events.subscribe", json::object{{"channel", "run_detail"}, {"runId", b}});
  ASSERT_TRUE(sub.contains("result")) << json::serialize(sub);
  complete_tasks(a);
  bool saw = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!saw && std::chrono::steady_clock::now() < deadline) {
    auto n = socket.next_notification(std::chrono::seconds(10));
    ASSERT_TRUE(n) << "no detail of the waiting run";
    if (n->at("method") != "run.detail") continue;
    const auto& run = n->at("params").at("run").as_object();
    saw = run.at("dependencyState").at("state") == "satisfied" &&
          run.at("dependencies").at(0).at("status") == "success";
  }
  EXPECT_TRUE(saw);
}

TEST_F(DependenciesTest, WebSocketMethodsMatchHttp) {
  auto a = create_run("a");
  auto b = create_run("b");
  auto socket = ws();
  auto added = socket.call("runs.addDependency", json::object{{"runId", b}, {"dependency", on_run(a)}});
  ASSERT_TRUE(added.contains("result")) << json::serialize(added);
  EXPECT_EQ(added.at("result").at("run").at("dependencyState").at("total").as_int64(), 1);
  EXPECT_EQ(json::serialize(added.at("result").at("run").at("dependencies")),
            json::serialize(get_run(b).at("dependencies")));

  // The same refusal, code, status and message over both transports.
  auto rpc = socket.call("runs.addDependency", json::object{{"runId", b}, {"dependency", on_run(a)}});
  auto http = add(b, on_run(a));
  ASSERT_TRUE(rpc.contains("error"));
  EXPECT_EQ(rpc.at("error").at("code").as_int64(), -32003);
  EXPECT_EQ(rpc.at("error").at("data").at("status").as_int64(), http.status);
  EXPECT_EQ(rpc.at("error").at("data").at("code"), http.json().at("error").at("code"));
  EXPECT_EQ(rpc.at("error").at("message"), http.json().at("error").at("message"));
  auto gate = socket.call("runs.resume", json::object{{"runId", b}});
  ASSERT_TRUE(gate.contains("error"));
  EXPECT_EQ(gate.at("error").at("data").at("details").at("reason"), "unmet_dependencies");

  auto removed = socket.call("runs.removeDependency", json::object{{"runId", b}, {"dependency", on_run(a)}});
  ASSERT_TRUE(removed.contains("result")) << json::serialize(removed);
  EXPECT_TRUE(removed.at("result").at("run").at("dependencies").as_array().empty());
  ASSERT_TRUE(socket.call("runs.addDependency", json::object{{"runId", b}, {"dependency", on_group("g")}})
                  .contains("result"));
  auto cleared = socket.call("runs.clearDependencies", json::object{{"runId", b}});
  ASSERT_TRUE(cleared.contains("result")) << json::serialize(cleared);
  EXPECT_EQ(cleared.at("result").at("run").at("dependencyState").at("state"), "none");
  auto missing = socket.call("runs.addDependency", json::object{{"runId", b}});
  EXPECT_EQ(missing.at("error").at("data").at("code"), "INVALID_REQUEST");
}

TEST_F(DependenciesTest, StartupSweepStartsRunsWhoseDependenciesWereMetMeanwhile) {
  auto a = create_run("a");
  auto b = create_run("b");
  ASSERT_EQ(add(b, on_run(a)).status, 200);
  ASSERT_EQ(client().post_json("/api/runs/" + b + "/ready", json::object{}).status, 200);
  daemon_->stop();
  // Another process (here: SQL, as a run finishing without a daemon) ended a meanwhile.
  test::exec_store_sql(home_, "UPDATE runs SET status = 'success' WHERE id = '" + a + "'");
  start_daemon();
  EXPECT_TRUE(eventually_status(b, "running")) << run_status(b);
  EXPECT_EQ(count_type(b, "run.started"), 1);
}

}  // namespace
}  // namespace agentry::integration
