// Schedules over the real daemon: the reference's routes and bodies over HTTP, the
// same operations over WebSocket, due starts and skips, and the startup policy for a
// one-time schedule that came due while the daemon was down. Due times here are a
// second or two away (delay); cron timing is covered with an injected clock in
// tests/unit/engine/schedule_commands_test.cpp.
#include "daemon_fixture.hpp"
#include "support/ws_client.hpp"

#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;

class ScheduleApiTest : public DaemonTest {
 protected:
  test::WsClient ws() { return test::WsClient("127.0.0.1", daemon_->port()); }

  std::string ready_run(const std::string& agent) {
    json::object body{{"agent", agent}, {"callerCwd", work_.string()}, {"overrides", {{"message", "go"}}}};
    auto created = client().post_json("/api/runs/init", body);
    EXPECT_EQ(created.status, 201) << created.body;
    std::string id(created.json().at("run").at("runId").as_string());
    EXPECT_EQ(client().post_json("/api/runs/" + id + "/ready", json::object{}).status, 200);
    return id;
  }
  test::HttpResponse put_schedule(const std::string& id, const json::value& body) {
    return client().put_json("/api/runs/" + id + "/schedule", body);
  }
  std::vector<json::object> audit(const std::string& id) {
    std::vector<json::object> out;
    auto page = client().get("/api/runs/" + id + "/audit").json();
    for (auto& e : page.at("events").as_array()) out.push_back(e.as_object());
    return out;
  }
  std::optional<json::object> audit_of_type(const std::string& id, const std::string& type) {
    std::optional<json::object> found;
    for (auto& e : audit(id))
      if (e.at("type") == json::value(type)) found = e;
    return found;
  }
  bool eventually(const std::function<bool()>& done, std::chrono::seconds limit = std::chrono::seconds(20)) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return done();
  }
};

TEST_F(ScheduleApiTest, RoutesSetShowEnableDisableAndClear) {
  auto id = create_run();  // the passive worker: an occurrence would be skipped
  auto set = put_schedule(id, json::object{{"cron", "0 9 * * *"}, {"timezone", "Europe/Berlin"}, {"mode", "clone"},
                                           {"continueOnFailure", false}});
  ASSERT_EQ(set.status, 200) << set.body;
  auto run = set.json().at("run").as_object();
  auto schedule = run.at("schedule").as_object();
  EXPECT_EQ(schedule.at("kind"), "recurring");
  EXPECT_EQ(schedule.at("cron"), "0 9 * * *");
  EXPECT_EQ(schedule.at("timezone"), "Europe/Berlin");
  EXPECT_EQ(schedule.at("mode"), "clone");
  EXPECT_EQ(schedule.at("enabled"), true);
  EXPECT_TRUE(schedule.at("nextAt").is_string());
  EXPECT_EQ(run.at("scheduleState").at("state"), "blocked");
  EXPECT_NE(std::string(run.at("scheduleState").at("reason").as_string()).find("passive"), std::string::npos);
  // The summary carries the same.
  auto list = client().get("/api/runs?global=true").json().at("runs").as_array();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list.at(0).at("schedule"), run.at("schedule"));
  EXPECT_EQ(list.at(0).at("scheduleState"), run.at("scheduleState"));

  auto cleared = client().del("/api/runs/" + id + "/schedule");
  EXPECT_EQ(cleared.status, 422) << cleared.body;  // recurring: disable instead
  EXPECT_EQ(error_code_of(cleared), "CONFLICT");
  auto disabled = client().post_json("/api/runs/" + id + "/schedule/disable", json::object{});
  ASSERT_EQ(disabled.status, 200) << disabled.body;
  EXPECT_EQ(disabled.json().at("run").at("scheduleState").at("state"), "disabled");
  auto enabled = client().post_json("/api/runs/" + id + "/schedule/enable", json::object{});
  ASSERT_EQ(enabled.status, 200);
  EXPECT_EQ(enabled.json().at("run").at("schedule").at("enabled"), true);

  auto once = put_schedule(id, json::object{{"delay", "30m"}});
  ASSERT_EQ(once.status, 200) << once.body;
  EXPECT_EQ(once.json().at("run").at("schedule").at("kind"), "once");
  EXPECT_EQ(once.json().at("run").at("schedule").at("delay"), "30m");
  auto gone = client().del("/api/runs/" + id + "/schedule");
  ASSERT_EQ(gone.status, 200) << gone.body;
  EXPECT_TRUE(gone.json().at("run").at("schedule").is_null());
  EXPECT_TRUE(gone.json().at("run").at("scheduleState").is_null());
  EXPECT_EQ(client().del("/api/runs/" + id + "/schedule").status, 422);  // nothing to clear
}

TEST_F(ScheduleApiTest, BadBodiesAreRefusedWithTheField) {
  auto id = create_run();
  struct Case {
    json::value body;
    int status;
    std::string field;
  };
  std::vector<Case> cases = {
      {json::object{}, 400, "schedule"},
      {json::object{{"delay", "1m"}, {"cron", "0 9 * * *"}}, 400, "schedule"},
      {json::object{{"delay", "soon"}}, 400, "delay"},
      {json::object{{"at", "2001-01-01T00:00:00Z"}}, 400, "at"},
      {json::object{{"at", "2031-01-01T00:00:00"}}, 400, "at"},
      {json::object{{"delay", "1m"}, {"timezone", "UTC"}}, 400, "timezone"},
      {json::object{{"cron", "0 9 * *"}}, 400, "cron"},
      {json::object{{"cron", "0 9 * * *"}, {"timezone", "Mars/Base"}}, 400, "timezone"},
      {json::object{{"cron", "0 9 * * *"}, {"mode", "fork"}}, 400, "mode"},
      {json::object{{"cron", "* * * * *"}}, 422, "cron"},  // under the minimum interval
      {json::object{{"delay", "1m"}, {"extra", 1}}, 400, "extra"},
  };
  for (const auto& c : cases) {
    auto r = put_schedule(id, c.body);
    EXPECT_EQ(r.status, c.status) << json::serialize(c.body) << " -> " << r.body;
    const auto answer = r.json();  // kept: `field` points into it
    auto* field = answer.at("error").at("details").as_object().if_contains("field");
    EXPECT_TRUE(field && *field == json::value(c.field)) << json::serialize(c.body) << " -> " << r.body;
  }
  EXPECT_EQ(put_schedule("no-such-run", json::object{{"delay", "1m"}}).status, 404);
  EXPECT_TRUE(get_run(id).at("schedule").is_null());  // nothing was written
}

TEST_F(ScheduleApiTest, ADueScheduleStartsTheRunAndASkipSaysWhy) {
  write_agent("talker", "mock", "{steps: [{say: hi}]}");
  auto due = ready_run("talker");
  auto passive = create_run();
  ASSERT_EQ(client().post_json("/api/runs/" + passive + "/ready", json::object{}).status, 200);
  ASSERT_EQ(put_schedule(due, json::object{{"delay", "1s"}}).status, 200);
  ASSERT_EQ(put_schedule(passive, json::object{{"delay", "1s"}}).status, 200);
  EXPECT_EQ(get_run(due).at("scheduleState").at("state"), "scheduled");
  ASSERT_TRUE(eventually([&] { return audit_of_type(due, "schedule.fired").has_value(); }));
  EXPECT_EQ(wait_until_settled(due), "success");
  auto started = audit_of_type(due, "run.started");
  ASSERT_TRUE(started);
  EXPECT_EQ(started->at("actor"), "schedule");
  EXPECT_TRUE(get_run(due).at("schedule").is_null());
  ASSERT_TRUE(eventually([&] { return audit_of_type(passive, "schedule.skipped").has_value(); }));
  auto skipped = *audit_of_type(passive, "schedule.skipped");
  EXPECT_EQ(skipped.at("data").at("code"), "passive");
  EXPECT_EQ(run_status(passive), "ready");
}

TEST_F(ScheduleApiTest, AOneTimeScheduleDueWhileTheDaemonWasDownIsRecordedAsMissed) {
  write_agent("talker", "mock", "{steps: [{say: hi}]}");
  auto id = ready_run("talker");
  ASSERT_EQ(put_schedule(id, json::object{{"delay", "2s"}}).status, 200);
  daemon_->stop();
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  start_daemon();
  auto missed = audit_of_type(id, "schedule.missed");
  ASSERT_TRUE(missed) << "no schedule.missed record";
  EXPECT_EQ(missed->at("data").at("cleared"), true);
  auto run = get_run(id);
  EXPECT_EQ(run.at("status"), "ready");  // not started late
  EXPECT_TRUE(run.at("schedule").is_null());
}

TEST_F(ScheduleApiTest, WebSocketMethodsMatchTheHttpRoutes) {
  auto http_id = create_run();
  auto ws_id = create_run();
  auto socket = ws();
  json::object cron{{"cron", "30 2 * * *"}, {"timezone", "America/New_York"}};
  auto via_http = put_schedule(http_id, cron).json().at("run");
  json::object params = cron;
  params["runId"] = ws_id;
  auto via_ws = socket.call("runs.setSchedule", params);
  ASSERT_TRUE(via_ws.contains("result")) << json::serialize(via_ws);
  EXPECT_EQ(via_ws.at("result").at("run").at("schedule").at("nextAt"), via_http.at("schedule").at("nextAt"));
  EXPECT_EQ(via_ws.at("result").at("run").at("scheduleState"), via_http.at("scheduleState"));
  auto disabled = socket.call("runs.disableSchedule", json::object{{"runId", ws_id}});
  EXPECT_EQ(disabled.at("result").at("run").at("scheduleState").at("state"), "disabled");
  auto enabled = socket.call("runs.enableSchedule", json::object{{"runId", ws_id}});
  EXPECT_EQ(enabled.at("result").at("run").at("schedule").at("enabled"), true);
  auto refused = socket.call("runs.clearSchedule", json::object{{"runId", ws_id}});
  ASSERT_TRUE(refused.contains("error"));
  EXPECT_EQ(refused.at("error").at("data").at("code"), "CONFLICT") << json::serialize(refused);
  auto once = socket.call("runs.setSchedule", json::object{{"runId", ws_id}, {"delay", "1h"}});
  EXPECT_EQ(once.at("result").at("run").at("schedule").at("kind"), "once");
  auto cleared = socket.call("runs.clearSchedule", json::object{{"runId", ws_id}});
  EXPECT_TRUE(cleared.at("result").at("run").at("schedule").is_null());
  auto bad = socket.call("runs.setSchedule", json::object{{"runId", ws_id}, {"cron", "nope"}});
  ASSERT_TRUE(bad.contains("error"));
}

TEST_F(ScheduleApiTest, RunsReadyOverWebSocketPromotesAndSchedulesInOneChange) {
  auto id = create_run();
  auto socket = ws();
  auto answer = socket.call("runs.ready", json::object{{"runId", id}, {"cron", "0 9 * * MON-FRI"},
                                                       {"timezone", "Europe/Berlin"}});
  ASSERT_TRUE(answer.contains("result")) << json::serialize(answer);
  const auto& run = answer.at("result").at("run");
  EXPECT_EQ(run.at("status"), "ready");
  EXPECT_EQ(run.at("schedule").at("cron"), "0 9 * * MON-FRI");
  EXPECT_TRUE(run.at("schedule").at("nextAt").is_string());
  auto set = audit_of_type(id, "schedule.set");
  ASSERT_TRUE(set.has_value());
  EXPECT_EQ(set->at("data").at("source"), "ready");
  ASSERT_TRUE(audit_of_type(id, "run.ready").has_value());

  // A schedule that cannot be set leaves the run initialized: nothing half done.
  auto other = create_run("search");
  auto bad = socket.call("runs.ready", json::object{{"runId", other}, {"cron", "* * * * *"}});
  ASSERT_TRUE(bad.contains("error")) << json::serialize(bad);
  EXPECT_EQ(get_run(other).at("status"), "initialized");
  EXPECT_FALSE(audit_of_type(other, "run.ready").has_value());

  // The HTTP route only promotes, as in the reference; it names the schedule route.
  auto refused = client().post_json("/api/runs/" + other + "/ready", json::object{{"delay", "1h"}});
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(error_code_of(refused), "INVALID_REQUEST");
  EXPECT_NE(refused.body.find("/schedule"), std::string::npos) << refused.body;
  EXPECT_EQ(get_run(other).at("status"), "initialized");
}

}  // namespace
}  // namespace agentry::integration
