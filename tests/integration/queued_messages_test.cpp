// Queued resume messages through the real daemon: queue while a mock run waits at a
// gate, list, remove one, let the session end, and see one new session carry the rest;
// and, after the daemon stops (SIGTERM) or dies (SIGKILL) with messages queued, see the
// next daemon deliver them.
#include "daemon_fixture.hpp"


namespace agentry::integration {
namespace {
namespace json = boost::json;

class QueuedMessagesApiTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    // No steps in backendConfig: the mock plays the prompt's "@mock" lines, and echoes a
    // prompt that has none. The first session waits at a gate file (30 s at most, so a
    // gate left closed by a killed daemon does not outlive the test); a session started
    // with queued messages echoes them.
    write_agent("echo", "mock", "{}");
  }

  std::string start_gated_run() {
    return start_agent_run("echo", "@mock " + json::serialize(gate_step()));
  }

  std::string queued_path(const std::string& run) { return "/api/runs/" + run + "/queued-resume-messages"; }

  json::object queue(const std::string& run, const std::string& text) {
    auto response = client().post_json(queued_path(run), json::object{{"text", text}});
    EXPECT_EQ(response.status, 201) << response.body;
    return response.status == 201 ? response.json().as_object() : json::object{};
  }

  std::vector<json::object> listed(const std::string& run) {
    auto response = client().get(queued_path(run));
    EXPECT_EQ(response.status, 200) << response.body;
    std::vector<json::object> out;
    if (response.status != 200) return out;
    auto body = response.json();
    EXPECT_EQ(body.at("runId").as_string(), run);
    for (const auto& m : body.at("messages").as_array()) out.push_back(m.as_object());
    return out;
  }

  std::vector<json::object> audit(const std::string& run) {
    std::vector<json::object> out;
    auto body = client().get("/api/runs/" + run + "/audit").json();
    for (const auto& e : body.at("events").as_array()) out.push_back(e.as_object());
    return out;
  }

  bool echoed(const std::string& run, const std::string& text) {
    for (const auto& e : timeline(run))
      if (e.at("kind") == "message.completed" && e.at("payload").at("text").as_string() == text) return true;
    return false;
  }

  /// The run's queue delivered into session 1 after `stop` ended the daemon.
  void expect_delivered_after_restart(const std::string& run, const std::string& ended_by) {
    auto after = wait_until_settled(run);
    EXPECT_EQ(after, "success");
    auto detail = get_run(run);
    const auto& sessions = detail.at("sessions").as_array();
    ASSERT_EQ(sessions.size(), 2u);
    EXPECT_EQ(sessions[0].at("endedBy").as_string(), ended_by);
    EXPECT_EQ(sessions[1].at("prompt").as_string(), "one\n\ntwo");
    EXPECT_EQ(detail.at("queuedMessageCount").as_int64(), 0);
    EXPECT_TRUE(echoed(run, "one\n\ntwo"));
    int recovered = 0;
    for (const auto& e : audit(run))
      if (e.at("type") == "run.resumed" && e.at("data").at("source") == "queued_messages") {
        EXPECT_TRUE(e.at("data").at("recovered").as_bool());
        EXPECT_EQ(e.at("data").at("count").as_int64(), 2);
        ++recovered;
      }
    EXPECT_EQ(recovered, 1);
  }
};

TEST_F(QueuedMessagesApiTest, QueueListRemoveThenOneResumeCarriesTheRest) {
  auto run = start_gated_run();
  ASSERT_EQ(run_status(run), "running");
  EXPECT_TRUE(get_run(run).at("capabilities").at("canQueueMessage").as_bool());

  auto first = queue(run, "first");
  ASSERT_TRUE(first.contains("message"));
  EXPECT_EQ(first.at("message").at("text").as_string(), "first");
  EXPECT_EQ(first.at("message").at("runId").as_string(), run);
  EXPECT_TRUE(first.at("message").at("createdAt").is_string());
  EXPECT_EQ(first.at("run").at("queuedMessageCount").as_int64(), 1);
  EXPECT_EQ(first.at("run").at("queuedResumeMessages").as_array().size(), 1u);
  auto second = queue(run, "second");
  queue(run, "third");

  auto messages = listed(run);
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0].at("text").as_string(), "first");
  EXPECT_EQ(messages[2].at("text").as_string(), "third");
  // Summaries carry the count.
  auto page = client().get("/api/runs?global=true").json().at("runs").as_array();
  for (const auto& s : page) {
    if (s.at("runId").as_string() == run) {
      EXPECT_EQ(s.at("queuedMessageCount").as_int64(), 3);
    }
  }

  const std::string second_id(second.at("message").at("id").as_string());
  auto removed = client().del(queued_path(run) + "/" + second_id);
  ASSERT_EQ(removed.status, 200) << removed.body;
  EXPECT_EQ(removed.json().at("result").at("messageId").as_string(), second_id);
  EXPECT_TRUE(removed.json().at("result").at("deleted").as_bool());
  auto again = client().del(queued_path(run) + "/" + second_id);
  EXPECT_EQ(again.status, 404) << again.body;
  EXPECT_EQ(error_code_of(again), "NOT_FOUND");
  EXPECT_EQ(listed(run).size(), 2u);

  open_gate();
  EXPECT_EQ(wait_until_settled(run), "success");
  auto detail = get_run(run);
  const auto& sessions = detail.at("sessions").as_array();
  ASSERT_EQ(sessions.size(), 2u) << "exactly one resume";
  EXPECT_EQ(sessions[0].at("endedBy").as_string(), "agent");
  EXPECT_EQ(sessions[1].at("prompt").as_string(), "first\n\nthird");
  EXPECT_TRUE(echoed(run, "first\n\nthird")) << "the new session's agent received the joined messages";
  EXPECT_TRUE(listed(run).empty());
  EXPECT_EQ(detail.at("queuedMessageCount").as_int64(), 0);
  EXPECT_EQ(detail.at("totalSessionCount").as_int64(), 2);

  int queued = 0, removed_events = 0, delivered = 0;
  for (const auto& e : audit(run)) {
    const auto& type = e.at("type").as_string();
    if (type == "run.message_queued") {
      ++queued;
      EXPECT_FALSE(e.at("data").as_object().contains("text"));
      EXPECT_TRUE(e.at("data").at("length").is_number());
    }
    if (type == "run.message_removed") ++removed_events;
    if (type == "run.resumed" && e.at("data").at("source") == "queued_messages") {
      ++delivered;
      EXPECT_EQ(e.at("data").at("count").as_int64(), 2);
    }
  }
  EXPECT_EQ(queued, 3);
  EXPECT_EQ(removed_events, 1);
  EXPECT_EQ(delivered, 1);

  // Not running any more: queueing is a conflict, and the capability says so.
  EXPECT_FALSE(detail.at("capabilities").at("canQueueMessage").as_bool());
  auto refused = client().post_json(queued_path(run), json::object{{"text", "late"}});
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_EQ(error_code_of(refused), "CONFLICT");
}

TEST_F(QueuedMessagesApiTest, BadRequestsAreRefused) {
  auto run = start_gated_run();
  for (const auto& body : {json::object{}, json::object{{"text", ""}}, json::object{{"text", 5}},
                           json::object{{"text", "x"}, {"extra", true}}}) {
    auto response = client().post_json(queued_path(run), body);
    EXPECT_EQ(response.status, 400) << json::serialize(body) << " -> " << response.body;
  }
  auto big = client().post_json(queued_path(run), json::object{{"text", std::string(256 * 1024 + 1, 'x')}});
  EXPECT_EQ(big.status, 400) << big.body.substr(0, 200);
  EXPECT_EQ(client().get(queued_path("nosuchrun")).status, 404);
  EXPECT_EQ(client().del(queued_path(run) + "/qm_nosuch").status, 404);
  EXPECT_EQ(client().del(queued_path(run) + "/..").status / 100, 4);
  open_gate();
  EXPECT_EQ(wait_until_settled(run), "success");
}

TEST_F(QueuedMessagesApiTest, QueuedMessagesAreDeliveredAfterTheDaemonStops) {
  auto run = start_gated_run();
  queue(run, "one");
  queue(run, "two");
  // A graceful stop aborts the live session; the user never aborted, so the next start
  // delivers the queue.
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
  start_daemon();
  expect_delivered_after_restart(run, "shutdown");
}

TEST_F(QueuedMessagesApiTest, QueuedMessagesAreDeliveredAfterTheDaemonDies) {
  auto run = start_gated_run();
  queue(run, "one");
  queue(run, "two");
  daemon_->kill9();  // the run stays "running" in the database; reconciliation finalizes it
  start_daemon();
  expect_delivered_after_restart(run, "restart");
}

TEST_F(QueuedMessagesApiTest, AnAbortedRunKeepsItsQueueForTheNextResume) {
  auto run = start_gated_run();
  queue(run, "keep me");
  auto aborted = client().post_json("/api/runs/" + run + "/abort", json::object{});
  ASSERT_EQ(aborted.status, 200) << aborted.body;
  EXPECT_TRUE(aborted.json().at("accepted").as_bool());
  EXPECT_EQ(wait_until_settled(run), "aborted");
  EXPECT_EQ(get_run(run).at("sessions").as_array().size(), 1u);
  daemon_->stop(SIGTERM);
  start_daemon();
  EXPECT_EQ(run_status(run), "aborted") << "a user's abort is not undone by a restart";
  EXPECT_EQ(listed(run).size(), 1u);
  auto resumed = client().post_json("/api/runs/" + run + "/resume", json::object{{"message", "and this"}});
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  EXPECT_EQ(wait_until_settled(run), "success");
  EXPECT_TRUE(echoed(run, "keep me\n\nand this"));
  EXPECT_TRUE(listed(run).empty());
}

}  // namespace
}  // namespace agentry::integration
