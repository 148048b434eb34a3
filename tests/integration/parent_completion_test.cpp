// Parent-completion delivery through the real daemon: a child run with a parent tells
// it, once, how its session ended: an idle parent is resumed with the message, a running
// one gets it queued; opting out sends nothing; long transcripts are cut with a marker;
// a killed daemon delivers at the next start, exactly once; a delivery already made
// (matching source metadata) is recognised; an older session's notification is skipped;
// an unfinished session's stays pending. Also group inheritance, WebSocket parity and
// the CLI's flags.
#include "cli_fixture.hpp"
#include "daemon_fixture.hpp"
#include "support/test_store.hpp"
#include "support/ws_client.hpp"


#include <functional>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string say(const std::string& text) { return "@mock " + json::serialize(json::object{{"say", text}}); }

class ParentCompletionTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    // No steps: the mock plays the prompt's "@mock" lines and echoes a prompt without any.
    write_agent("echo", "mock", "{}");
  }

  /// A parent run that has ended (success) and can be resumed.
  std::string idle_parent() {
    auto id = start_agent_run("echo", say("parent here"));
    EXPECT_EQ(wait_until_settled(id), "success");
    return id;
  }

  /// A parent run whose session waits for the gate file (30 s at most).
  std::string gated_parent() {
    return start_agent_run("echo", "@mock " + json::serialize(gate_step()));
  }

  json::object child_body(const std::string& parent, const std::string& message) {
    return {{"agent", "echo"},
            {"callerCwd", work_.string()},
            {"parentRunId", parent},
            {"overrides", {{"message", message}}}};
  }
  std::string start_child(json::object body) {
    auto response = client().post_json("/api/runs", body);
    EXPECT_EQ(response.status, 201) << response.body;
    if (response.status != 201) return {};
    return std::string(response.json().at("run").at("runId").as_string());
  }

  std::vector<json::object> audit(const std::string& run) {
    std::vector<json::object> out;
    auto body = client().get("/api/runs/" + run + "/audit?limit=1000").json();
    for (const auto& e : body.at("events").as_array()) out.push_back(e.as_object());
    return out;
  }
  int audit_count(const std::string& run, const std::string& type) {
    int n = 0;
    for (const auto& e : audit(run))
      if (e.at("type") == json::value(type)) ++n;
    return n;
  }

  /// Polls until `pred` holds for the run's detail (hang guard 30 s).
  json::object wait_for(const std::string& run, const std::function<bool(const json::object&)>& pred) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    json::object detail;
    while (std::chrono::steady_clock::now() < deadline) {
      detail = get_run(run);
      if (pred(detail)) return detail;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "run " << run << " never got there: " << json::serialize(detail).substr(0, 2000);
    return detail;
  }
  json::object wait_for_sessions(const std::string& run, std::size_t count) {
    return wait_for(run, [&](const json::object& d) {
      return d.at("sessions").as_array().size() >= count && d.at("status") != "running";
    });
  }
  json::object wait_for_notification(const std::string& child, const std::string& state) {
    return wait_for(child, [&](const json::object& d) {
      return d.at("parentNotification").is_object() && d.at("parentNotification").at("state") == json::value(state);
    });
  }

  /// Runs SQL on the stopped daemon's database.
  void sql(const std::string& statement) { test::exec_store_sql(home_, statement); }

  static std::string prompt_of(const json::object& detail, std::size_t session) {
    return std::string(detail.at("sessions").as_array().at(session).at("prompt").as_string());
  }
};

TEST_F(ParentCompletionTest, AnIdleParentIsResumedWithItsChildsResult) {
  const auto parent = idle_parent();
  const auto child = start_child(child_body(parent, say("CHILD-RESULT-42")));
  EXPECT_EQ(wait_until_settled(child), "success");

  auto detail = wait_for_sessions(parent, 2);
  EXPECT_EQ(detail.at("status"), "success");
  const auto& sessions = detail.at("sessions").as_array();
  ASSERT_EQ(sessions.size(), 2u);
  const std::string prompt = prompt_of(detail, 1);
  EXPECT_TRUE(contains(prompt, "Child run " + child + " ended: success")) << prompt;
  EXPECT_TRUE(contains(prompt, "agentry show " + child)) << prompt;
  EXPECT_TRUE(contains(prompt, "agentry logs " + child)) << prompt;
  EXPECT_TRUE(contains(prompt, "Last transcript:\nCHILD-RESULT-42")) << prompt;
  EXPECT_FALSE(contains(prompt, "[truncated]")) << prompt;
  const auto& source = sessions[1].at("source");
  EXPECT_EQ(source.at("kind"), "child_completion");
  EXPECT_EQ(source.at("childRunId"), json::value(child));
  EXPECT_EQ(source.at("childSessionIndex"), 0);
  EXPECT_EQ(source.at("childSessionStartedAt"), get_run(child).at("sessions").at(0).at("startedAt"));
  EXPECT_FALSE(sessions[0].as_object().contains("source"));

  auto child_detail = get_run(child);
  EXPECT_TRUE(child_detail.at("notifyParentOnComplete").as_bool()) << "the default with a parent";
  const auto& n = child_detail.at("parentNotification");
  EXPECT_EQ(n.at("state"), "delivered");
  EXPECT_EQ(n.at("delivery"), "resumed");
  EXPECT_EQ(n.at("parentRunId"), json::value(parent));
  EXPECT_EQ(n.at("sessionIndex"), 0);
  EXPECT_TRUE(n.at("reason").is_null());
  EXPECT_TRUE(n.at("deliveredAt").is_string());
  EXPECT_EQ(child_detail.at("runGroupId"), detail.at("runGroupId")) << "a child joins its parent's group";
  EXPECT_TRUE(get_run(parent).at("parentNotification").is_null());

  // Audit: compact on both runs, never the message or the transcript.
  EXPECT_EQ(audit_count(child, "parent_notification.pending"), 1);
  EXPECT_EQ(audit_count(child, "parent_notification.delivered"), 1);
  int resumed = 0;
  for (const auto& e : audit(parent))
    if (e.at("type") == "run.resumed") {
      ++resumed;
      EXPECT_EQ(e.at("data").at("source"), "child_completion");
      EXPECT_EQ(e.at("data").at("childRunId"), json::value(child));
    }
  EXPECT_EQ(resumed, 1);
  for (const auto& run : {parent, child})
    for (const auto& e : audit(run)) EXPECT_FALSE(contains(json::serialize(e), "CHILD-RESULT-42")) << json::serialize(e);
}

TEST_F(ParentCompletionTest, ARunningParentGetsOneQueuedMessage) {
  const auto parent = gated_parent();
  ASSERT_EQ(run_status(parent), "running");
  const auto child = start_child(child_body(parent, say("queued result")));
  EXPECT_EQ(wait_until_settled(child), "success");
  wait_for_notification(child, "delivered");
  auto queued = client().get("/api/runs/" + parent + "/queued-resume-messages").json();
  const auto& messages = queued.at("messages").as_array();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].at("source").at("kind"), "child_completion");
  EXPECT_EQ(messages[0].at("source").at("childRunId"), json::value(child));
  EXPECT_EQ(messages[0].at("source").at("childSessionIndex"), 0);
  EXPECT_TRUE(contains(std::string(messages[0].at("text").as_string()), "queued result"));
  EXPECT_EQ(get_run(child).at("parentNotification").at("delivery"), "queued_message");

  open_gate();
  auto detail = wait_for_sessions(parent, 2);
  ASSERT_EQ(detail.at("sessions").as_array().size(), 2u);
  EXPECT_TRUE(contains(prompt_of(detail, 1), "Child run " + child + " ended: success")) << prompt_of(detail, 1);
  EXPECT_TRUE(contains(prompt_of(detail, 1), "queued result"));
}

TEST_F(ParentCompletionTest, OptingOutSendsNothingAndKeepsAGroupOfItsOwn) {
  const auto parent = idle_parent();
  auto body = child_body(parent, say("quiet"));
  body["notifyParentOnComplete"] = false;
  body["inheritRunGroup"] = false;
  const auto child = start_child(body);
  EXPECT_EQ(wait_until_settled(child), "success");
  // Another child that does notify, started after: once its delivery is seen, the quiet
  // one's would have been too.
  const auto loud = start_child(child_body(parent, say("loud")));
  EXPECT_EQ(wait_until_settled(loud), "success");
  wait_for_notification(loud, "delivered");
  auto detail = wait_for_sessions(parent, 2);
  EXPECT_EQ(detail.at("sessions").as_array().size(), 2u);
  EXPECT_FALSE(contains(json::serialize(detail.at("sessions")), child));

  auto quiet = get_run(child);
  EXPECT_FALSE(quiet.at("notifyParentOnComplete").as_bool());
  EXPECT_TRUE(quiet.at("parentNotification").is_null());
  EXPECT_EQ(quiet.at("runGroupId"), json::value(child));
  EXPECT_EQ(quiet.at("parentRunId"), json::value(parent));
  EXPECT_EQ(audit_count(child, "parent_notification.pending"), 0);
  // An explicit group wins over the parent's.
  body = child_body(parent, say("grouped"));
  body["runGroupId"] = "wave-1";
  body["notifyParentOnComplete"] = false;
  const auto grouped = start_child(body);
  EXPECT_EQ(get_run(grouped).at("runGroupId"), "wave-1");
  wait_until_settled(grouped);
}

TEST_F(ParentCompletionTest, ALongTranscriptIsCutWithTheMarker) {
  const auto parent = idle_parent();
  const std::string text = std::string(6000, 'x') + " END-OF-CHILD";
  const auto child = start_child(child_body(parent, say(text)));
  EXPECT_EQ(wait_until_settled(child), "success");
  auto detail = wait_for_sessions(parent, 2);
  const std::string prompt = prompt_of(detail, 1);
  EXPECT_TRUE(contains(prompt, "Last transcript:\n[truncated]\n")) << prompt.substr(0, 400);
  EXPECT_TRUE(contains(prompt, "END-OF-CHILD"));
  EXPECT_FALSE(contains(prompt, text));
  EXPECT_LT(prompt.size(), 4096u + 1024u);
}

TEST_F(ParentCompletionTest, ADaemonKilledMidChildDeliversOnceAtTheNextStart) {
  const auto parent = idle_parent();
  // The child waits; the daemon dies under it, and the next start finalizes it (error)
  // and then tells the parent.
  json::object wait{{"sleepMs", 30000}};
  const auto child = start_child(child_body(parent, "@mock " + json::serialize(wait)));
  ASSERT_EQ(run_status(child), "running");
  daemon_->kill9();
  start_daemon();
  EXPECT_EQ(run_status(child), "error");
  auto detail = wait_for_sessions(parent, 2);
  ASSERT_EQ(detail.at("sessions").as_array().size(), 2u);
  EXPECT_TRUE(contains(prompt_of(detail, 1), "Child run " + child + " ended: error")) << prompt_of(detail, 1);
  auto n = get_run(child).at("parentNotification");
  EXPECT_EQ(n.at("state"), "delivered");
  bool recovered = false;
  for (const auto& e : audit(child))
    if (e.at("type") == "parent_notification.delivered") recovered = e.at("data").at("recovered").as_bool();
  EXPECT_TRUE(recovered);

  // Restarts deliver nothing more, killed or not.
  daemon_->kill9();
  start_daemon();
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
  start_daemon();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(get_run(parent).at("sessions").as_array().size(), 2u);
  EXPECT_EQ(audit_count(child, "parent_notification.delivered"), 1);
}

TEST_F(ParentCompletionTest, MatchingSourceMetadataCountsAsDelivered) {
  // The state a crash between the parent's delivery and the child's marking would leave
  // (agentry writes both in one transaction, so it is made by hand): the parent already
  // has the session, the child's notification is still pending.
  const auto parent = idle_parent();
  const auto child = start_child(child_body(parent, say("once")));
  EXPECT_EQ(wait_until_settled(child), "success");
  wait_for_notification(child, "delivered");
  wait_for_sessions(parent, 2);
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
  sql("UPDATE parent_notifications SET state = 'pending', delivery = '', delivered_at = NULL WHERE child_run_id = '" +
      child + "'");
  start_daemon();
  auto n = wait_for_notification(child, "delivered").at("parentNotification");
  EXPECT_EQ(n.at("delivery"), "resumed");
  EXPECT_EQ(get_run(parent).at("sessions").as_array().size(), 2u) << "not resumed twice";
  bool matched = false;
  for (const auto& e : audit(child))
    if (e.at("type") == "parent_notification.delivered" && e.at("data").as_object().contains("matchedSource"))
      matched = true;
  EXPECT_TRUE(matched);

  // The same with a queued message on a parent that is running.
  const auto running = gated_parent();
  const auto second = start_child(child_body(running, say("queued once")));
  EXPECT_EQ(wait_until_settled(second), "success");
  wait_for_notification(second, "delivered");
  daemon_->kill9();  // the parent's queue survives; reconciliation ends its session
  sql("UPDATE parent_notifications SET state = 'pending' WHERE child_run_id = '" + second + "'");
  start_daemon();
  wait_for_notification(second, "delivered");
  auto resumed = wait_for_sessions(running, 2);
  ASSERT_EQ(resumed.at("sessions").as_array().size(), 2u);
  const std::string prompt = prompt_of(resumed, 1);
  EXPECT_EQ(prompt.find("Child run " + second), prompt.rfind("Child run " + second)) << "one message: " << prompt;
  EXPECT_TRUE(resumed.at("queuedResumeMessages").as_array().empty());
}

TEST_F(ParentCompletionTest, AnOlderSessionIsSkippedAndAnUnfinishedOneStaysPending) {
  const auto parent = idle_parent();
  const auto child = start_child(child_body(parent, say("first session")));
  EXPECT_EQ(wait_until_settled(child), "success");
  wait_for_notification(child, "delivered");
  wait_for_sessions(parent, 2);
  // The child's second session reports too.
  auto resumed = client().post_json("/api/runs/" + child + "/resume", json::object{{"message", say("second")}});
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  EXPECT_EQ(wait_until_settled(child), "success");
  wait_for(child, [](const json::object& d) {
    return d.at("parentNotification").at("sessionIndex") == 1 && d.at("parentNotification").at("state") == "delivered";
  });
  wait_for_sessions(parent, 3);
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
  sql("UPDATE parent_notifications SET state = 'pending' WHERE child_run_id = '" + child +
      "' AND child_session_index = 0");
  start_daemon();
  bool skipped = false;
  for (int i = 0; i < 200 && !skipped; ++i) {
    for (const auto& e : audit(child))
      if (e.at("type") == "parent_notification.skipped" &&
          e.at("data").at("reason") == "notification_session_not_current")
        skipped = true;
    if (!skipped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(skipped);
  EXPECT_EQ(get_run(parent).at("sessions").as_array().size(), 3u);

  // A passive child's session stays open across a restart: not confirmed ended, so the
  // notification stays pending (audited); it is delivered once the session ends.
  auto passive = start_child(json::object{{"agent", "worker"},
                                          {"assignment", "feature"},
                                          {"callerCwd", work_.string()},
                                          {"cliVars", {{"feature", "x"}}},
                                          {"parentRunId", parent}});
  ASSERT_EQ(run_status(passive), "running");
  EXPECT_EQ(get_run(passive).at("parentNotification").at("state"), "pending");
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
  start_daemon();
  EXPECT_EQ(get_run(passive).at("parentNotification").at("state"), "pending");
  bool kept = false;
  for (const auto& e : audit(passive))
    if (e.at("type") == "parent_notification.kept_pending" &&
        e.at("data").at("reason") == "child_session_not_terminal")
      kept = true;
  EXPECT_TRUE(kept);
  for (const char* task : {"plan", "build", "review%2Fcheck"}) {
    auto r = client().patch_json("/api/runs/" + passive + "/tasks/" + std::string(task),
                                 json::object{{"status", "completed"}});
    ASSERT_EQ(r.status, 200) << r.body;
  }
  EXPECT_EQ(run_status(passive), "success");
  wait_for_notification(passive, "delivered");
  auto detail = wait_for_sessions(parent, 4);
  EXPECT_TRUE(contains(prompt_of(detail, 3), "Child run " + passive + " ended: success"));
}

TEST_F(ParentCompletionTest, AResetChildReportsItsNewSessionsAgain) {
  // After a reset the child's sessions count from 0 again: its new session 0 is not the
  // one the parent already heard of.
  const auto parent = idle_parent();
  const auto child = start_child(child_body(parent, say("before the reset")));
  EXPECT_EQ(wait_until_settled(child), "success");
  wait_for_notification(child, "delivered");
  wait_for_sessions(parent, 2);
  ASSERT_EQ(client().post_json("/api/runs/" + child + "/reset", json::object{}).status, 200);
  EXPECT_TRUE(get_run(child).at("parentNotification").is_null());
  ASSERT_EQ(client().post_json("/api/runs/" + child + "/resume", json::object{}).status, 200);
  EXPECT_EQ(wait_until_settled(child), "success");
  EXPECT_EQ(wait_for_notification(child, "delivered").at("parentNotification").at("delivery"), "resumed");
  auto detail = wait_for_sessions(parent, 3);
  ASSERT_EQ(detail.at("sessions").as_array().size(), 3u);
  EXPECT_TRUE(contains(prompt_of(detail, 2), "Child run " + child + " ended: success"));
}

TEST_F(ParentCompletionTest, ParentsThatCannotTakeItAreSkippedWithAReason) {
  // Never started: skipped, not started for it.
  auto init = client().post_json("/api/runs/init", json::object{{"agent", "echo"}, {"callerCwd", work_.string()},
                                                               {"overrides", {{"message", "x"}}}});
  ASSERT_EQ(init.status, 201);
  const std::string fresh(init.json().at("run").at("runId").as_string());
  const auto child = start_child(child_body(fresh, say("nobody listens")));
  EXPECT_EQ(wait_until_settled(child), "success");
  auto n = wait_for_notification(child, "skipped").at("parentNotification");
  EXPECT_EQ(n.at("reason"), "parent_not_started");
  EXPECT_EQ(run_status(fresh), "initialized");

  // Archived: skipped.
  const auto parent = idle_parent();
  json::object wait{{"sleepMs", 300}};
  const auto late = start_child(child_body(parent, "@mock " + json::serialize(wait)));
  ASSERT_EQ(client().post_json("/api/runs/" + parent + "/archive", json::object{}).status, 200);
  EXPECT_EQ(wait_until_settled(late), "success");
  EXPECT_EQ(wait_for_notification(late, "skipped").at("parentNotification").at("reason"), "parent_archived");
  EXPECT_EQ(get_run(parent).at("sessions").as_array().size(), 1u);
}

TEST_F(ParentCompletionTest, BadFieldsAreRefusedOverHttpAndWebSocket) {
  const auto parent = create_run();
  auto base = child_body(parent, "hi");
  for (auto [key, value] : {std::pair<const char*, json::value>{"notifyParentOnComplete", "yes"},
                            std::pair<const char*, json::value>{"inheritRunGroup", 1}}) {
    auto body = base;
    body[key] = value;
    auto response = client().post_json("/api/runs/init", body);
    EXPECT_EQ(response.status, 400) << response.body;
    EXPECT_EQ(error_code_of(response), "INVALID_REQUEST");
    EXPECT_EQ(response.json().at("error").at("details").at("field"), json::value(key));
  }
  json::object orphan{{"agent", "echo"}, {"callerCwd", work_.string()}, {"notifyParentOnComplete", true}};
  auto response = client().post_json("/api/runs/init", orphan);
  EXPECT_EQ(response.status, 400) << response.body;
  EXPECT_EQ(response.json().at("error").at("details").at("field"), "notifyParentOnComplete");

  test::WsClient socket("127.0.0.1", daemon_->port());
  auto refused = socket.call("runs.init", orphan);
  ASSERT_TRUE(refused.contains("error")) << json::serialize(refused);
  auto body = base;
  body["notifyParentOnComplete"] = false;
  body["inheritRunGroup"] = false;
  auto created = socket.call("runs.init", body);
  ASSERT_TRUE(created.contains("result")) << json::serialize(created);
  const auto& run = created.at("result").at("run");
  EXPECT_FALSE(run.at("notifyParentOnComplete").as_bool());
  EXPECT_EQ(run.at("runGroupId"), run.at("runId"));
  auto inherited = socket.call("runs.init", base);
  EXPECT_EQ(inherited.at("result").at("run").at("runGroupId"), get_run(parent).at("runGroupId"));
  EXPECT_TRUE(inherited.at("result").at("run").at("notifyParentOnComplete").as_bool());
}

// The CLI: `run --detach` with a parent notifies unless told not to; a foreground `run`
// does not (its caller reads the output); --no-inherit-run-group keeps a group of its own.
TEST_F(ParentCompletionTest, CompletionsPastTheParentsResumeRateAreHeldAndDeliveredInOneResume) {
  // One child-completion resume per 3 s: an agent that starts a child in every session
  // can no longer loop as fast as the agents run.
  start_daemon({{"AGENTRY_CHILD_RESUME_LIMIT", "1"}, {"AGENTRY_CHILD_RESUME_WINDOW_SEC", "3"}});
  const auto parent = idle_parent();
  const auto first = start_child(child_body(parent, say("first")));
  EXPECT_EQ(wait_until_settled(first), "success");
  wait_for_sessions(parent, 2);

  const auto second = start_child(child_body(parent, say("second")));
  const auto third = start_child(child_body(parent, say("third")));
  for (const auto& child : {second, third}) {
    EXPECT_EQ(wait_until_settled(child), "success");
    auto n = wait_for_notification(child, "delivered").at("parentNotification");
    EXPECT_EQ(n.at("delivery"), "held") << json::serialize(n);
  }
  // Held: recorded on the parent's queue, no session yet.
  auto held = get_run(parent);
  EXPECT_EQ(held.at("sessions").as_array().size(), 2u) << json::serialize(held.at("sessions"));

  // Once the window allows, one resume delivers both.
  auto detail = wait_for_sessions(parent, 3);
  ASSERT_EQ(detail.at("sessions").as_array().size(), 3u);
  const std::string prompt = prompt_of(detail, 2);
  EXPECT_TRUE(contains(prompt, "Child run " + second + " ended: success")) << prompt;
  EXPECT_TRUE(contains(prompt, "Child run " + third + " ended: success")) << prompt;
  EXPECT_EQ(detail.at("queuedMessageCount"), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(get_run(parent).at("sessions").as_array().size(), 3u) << "one resume for the batch, not one each";
}

TEST_F(ParentCompletionTest, AParentHasABoundedNumberOfChildrenThatHaveNotEnded) {
  start_daemon({{"AGENTRY_MAX_LIVE_CHILDREN", "2"}});
  const auto parent = idle_parent();
  auto init_child = [&] {
    auto body = child_body(parent, say("later"));
    return client().post_json("/api/runs/init", body);
  };
  EXPECT_EQ(init_child().status, 201);
  auto second = init_child();
  ASSERT_EQ(second.status, 201);
  auto refused = init_child();
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_EQ(refused.json().at("error").at("details").at("reason"), "too_many_children") << refused.body;
  EXPECT_TRUE(contains(refused.body, "AGENTRY_MAX_LIVE_CHILDREN")) << refused.body;
  // An archived (or ended) child no longer counts.
  const std::string id(second.json().at("run").at("runId").as_string());
  ASSERT_EQ(client().post_json("/api/runs/" + id + "/archive", json::object{}).status, 200);
  EXPECT_EQ(init_child().status, 201);
}

class ParentCompletionCliTest : public CliTest {};

TEST_P(ParentCompletionCliTest, DetachedChildrenNotifyTheirParentByDefault) {
  auto parent = cli({"init", "talker", "-m", "go", "--json"});
  ASSERT_EQ(parent.code, 0) << parent.err;
  const std::string parent_id(json::parse(parent.out).at("run").at("runId").as_string());
  const std::string parent_group(json::parse(parent.out).at("run").at("runGroupId").as_string());

  auto detached = cli({"run", "talker", "-m", "go", "--detach", "--parent-run", parent_id, "--json"});
  ASSERT_EQ(detached.code, 0) << detached.err;
  auto run = json::parse(detached.out).at("run");
  EXPECT_TRUE(run.at("notifyParentOnComplete").as_bool());
  EXPECT_EQ(run.at("runGroupId"), json::value(parent_group));

  auto quiet = cli({"run", "talker", "-m", "go", "--detach", "--no-notify-parent-on-complete",
                    "--no-inherit-run-group", "--json"},
                   {{"AGENTRY_PARENT_RUN_ID", parent_id}, {"AGENTRY_RUN_GROUP_ID", parent_group}});
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  run = json::parse(quiet.out).at("run");
  EXPECT_EQ(run.at("parentRunId"), json::value(parent_id));
  EXPECT_FALSE(run.at("notifyParentOnComplete").as_bool());
  EXPECT_EQ(run.at("runGroupId"), run.at("runId"));

  auto foreground = cli({"run", "talker", "-m", "go", "--parent-run", parent_id, "--json"});
  ASSERT_EQ(foreground.code, 0) << foreground.err;
  EXPECT_FALSE(json::parse(foreground.out).at("run").at("notifyParentOnComplete").as_bool());
}

INSTANTIATE_TEST_SUITE_P(Daemon, ParentCompletionCliTest, ::testing::Values(CliMode::connected), mode_name);

}  // namespace
}  // namespace agentry::integration
