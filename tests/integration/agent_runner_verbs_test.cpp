// agent-runner's command set beyond what agents run (docs/agent-runner.md "The
// agent-runner command"): runs without an agent, the run settings, queued messages,
// audit, schedules, the lifecycle verbs, list and show, each with its text and its JSON
// checked against agent-runner's schemas, in both CLI modes.
#include "agent_runner_cli_fixture.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using namespace agent_runner_cli;

class AgentRunnerVerbsTest : public AgentRunnerCliTest {};

// Without --agent, --backend runs agent-runner's ad-hoc agent; with one, the agent must
// unlock it.
TEST_P(AgentRunnerVerbsTest, BackendWithoutAgentRunsAnAdHocAgent) {
  auto init = ar({"init", "--backend", "passive", "--output-format", "json", "wait", "here"});
  ASSERT_EQ(init.code, 0) << init.err;
  auto detail = json::parse(init.out);
  EXPECT_EQ(joined(api::compat::testing::check_run_detail(detail)), "");
  EXPECT_EQ(detail.at("agent").at("name"), "ad-hoc");
  EXPECT_TRUE(detail.at("agent").at("sourcePath").is_null());
  EXPECT_EQ(detail.at("backend"), "passive");

  auto ran = ar({"run", "--backend", "mock", "--model", "m-1", "--output-format", "json", "hello"});
  ASSERT_EQ(ran.code, 0) << ran.out << ran.err;
  auto run = json::parse(ran.out);
  EXPECT_EQ(run.at("status"), "success");
  EXPECT_EQ(run.at("agent").at("name"), "ad-hoc");
  EXPECT_EQ(run.at("model"), "m-1");

  auto neither = ar({"run", "hello"});
  EXPECT_EQ(neither.code, 3);
  EXPECT_TRUE(contains(neither.err, "--backend")) << neither.err;
  auto locked = ar({"init", "--agent", "worker", "--backend", "mock", "x"});
  EXPECT_EQ(locked.code, 3);
  EXPECT_TRUE(contains(locked.err, "unlockedFields: [backend]")) << locked.err;
  write_agent("open", "mock", "{steps: [{say: hi}]}", "unrestricted: false\nunlockedFields: [unrestricted]\n");
  auto loosened = ar({"init", "--agent", "open", "--unrestricted", "--output-format", "json", "x"});
  ASSERT_EQ(loosened.code, 0) << loosened.err;
  EXPECT_EQ(json::parse(loosened.out).at("unrestricted"), true);
}

// The run settings: each answers its result object (whether anything changed), or a line.
TEST_P(AgentRunnerVerbsTest, RunSettingsAnswerWhetherTheyChanged) {
  const std::string id = init_feature_run();
  ASSERT_FALSE(id.empty());
  auto json_of = [&](const std::vector<std::string>& args) {
    auto r = ar(args);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    return r.code == 0 ? json::parse(r.out) : json::value();
  };
  auto named = json_of({"run", "set-name", id, "nightly", "--output-format", "json"});
  EXPECT_EQ(joined(api::compat::testing::check_name_result(named)), "");
  EXPECT_EQ(named.at("name"), "nightly");
  EXPECT_EQ(named.at("changed"), true);
  EXPECT_EQ(json_of({"run", "set-name", id, "nightly", "--output-format", "json"}).at("changed"), false);
  EXPECT_EQ(ar({"run", "set-name", id, "nightly"}).out, "agent-runner: run " + id + " already has name \"nightly\"\n");
  EXPECT_EQ(ar({"run", "set-name", id, "--clear"}).out, "agent-runner: cleared name for run " + id + "\n");
  EXPECT_EQ(ar({"run", "set-name", id}).code, 3);

  auto noted = json_of({"run", "set-note", id, "look at this", "--output-format", "json"});
  EXPECT_EQ(joined(api::compat::testing::check_note_result(noted)), "");
  EXPECT_EQ(noted.at("note"), "look at this");
  EXPECT_EQ(ar({"run", "clear-note", id}).out, "agent-runner: cleared note for run " + id + "\n");

  auto pinned = json_of({"run", "pin", id, "--output-format", "json"});
  EXPECT_EQ(joined(api::compat::testing::check_pinned_result(pinned)), "");
  EXPECT_EQ(pinned.at("pinned"), true);
  EXPECT_EQ(ar({"run", "pin", id}).out, "agent-runner: run " + id + " is already pinned\n");
  EXPECT_EQ(ar({"run", "unpin", id}).out, "agent-runner: unpinned run " + id + "\n");

  auto archived = json_of({"run", "archive", id, "--output-format", "json"});
  EXPECT_EQ(joined(api::compat::testing::check_archive_result(archived)), "");
  EXPECT_EQ(archived.at("changed"), true);
  EXPECT_EQ(ar({"run", "archive", id}).out, "agent-runner: run " + id + " is already archived\n");
  EXPECT_EQ(ar({"run", "unarchive", id}).out, "agent-runner: unarchived run " + id + "\n");

  auto grouped = json_of({"run", "set-group", id, "batch-7", "--output-format", "json"});
  EXPECT_EQ(joined(api::compat::testing::check_group_result(grouped)), "");
  EXPECT_EQ(grouped.at("runGroupId"), "batch-7");
  EXPECT_EQ(grouped.at("previousRunGroupId"), json::value(id));
  EXPECT_EQ(ar({"run", "clear-group", id}).out,
            "agent-runner: cleared group for run " + id + "; run is now in singleton group " + id + "\n");

  auto session = json_of({"run", "set-backend-session", id, "s-1", "--output-format", "json"});
  EXPECT_EQ(joined(api::compat::testing::check_backend_session_result(session)), "");
  EXPECT_EQ(session.at("backendSessionId"), "s-1");
  EXPECT_EQ(ar({"run", "clear-backend-session", id}).out, "agent-runner: cleared backend session for run " + id + "\n");

  const std::string other = init_feature_run();
  auto deps = json_of({"run", "add-dep", id, "--run", other, "--output-format", "json"});
  EXPECT_EQ(joined(api::compat::testing::check_dependencies_result(deps)), "");
  EXPECT_EQ(deps.at("dependencies"), (json::array{json::object{{"type", "run"}, {"runId", other}}}));
  EXPECT_EQ(ar({"run", "remove-dep", id, "--run", other}).out,
            "agent-runner: removed run dependency " + other + " from run " + id + "\n");
  EXPECT_EQ(ar({"run", "clear-deps", id}).out, "agent-runner: run " + id + " already has no dependencies\n");
  EXPECT_EQ(ar({"run", "add-dep", id}).code, 3);  // neither --run nor --group
  EXPECT_EQ(ar({"run", "pin", "no-such-run"}).code, 3);
}

// Queued resume messages, the audit history, schedules, reconfigure, reset and delete.
TEST_P(AgentRunnerVerbsTest, MessagesAuditSchedulesAndTheRunsLifecycle) {
  // Queued messages wait for a live session: one that sleeps longer than the checks below
  // take on a loaded machine (3 s was not always enough on PostgreSQL beside other tests).
  write_agent("sleeper", "mock", "{steps: [{sleepMs: 10000}, {say: done}]}");
  auto running = cli_start({"run", "sleeper", "-m", "go"});
  std::string live;
  for (int i = 0; i < 300 && live.empty(); ++i) {
    for (const auto& run : all_runs())
      if (run.at("status") == "running") live = std::string(run.at("runId").as_string());
    if (live.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_FALSE(live.empty()) << "the sleeper never ran";
  auto queued = ar({"run", "queue-message", live, "please", "continue", "--output-format", "json"});
  ASSERT_EQ(queued.code, 0) << queued.err;
  auto q = json::parse(queued.out);
  EXPECT_EQ(joined(api::compat::testing::check_queued_message(q.at("queuedResumeMessage"))), "");
  EXPECT_EQ(q.at("queuedResumeMessage").at("text"), "please continue");
  EXPECT_EQ(q.at("queuedResumeMessageCount"), 1);
  const std::string message_id(q.at("queuedResumeMessage").at("id").as_string());
  auto listed = ar({"run", "queued-messages", live});
  EXPECT_TRUE(contains(listed.out, "Queued resume messages for run " + live + ":\n" + message_id)) << listed.out;
  EXPECT_TRUE(contains(listed.out, "\n  please continue\n")) << listed.out;
  EXPECT_EQ(ar({"run", "remove-queued-message", live, message_id}).out,
            "agent-runner: removed queued message " + message_id + " from run " + live + "\n");
  EXPECT_EQ(ar({"run", "queued-messages", live}).out, "No queued resume messages for run " + live + ".\n");
  EXPECT_EQ(ar({"run", "queue-message", live}).code, 3);
  EXPECT_EQ(cli_wait(running).code, 0);

  const std::string id = init_feature_run();
  ASSERT_FALSE(id.empty());

  auto audit = ar({"run", "audit", id, "--output-format", "json"});
  ASSERT_EQ(audit.code, 0) << audit.err;
  auto history = json::parse(audit.out);
  EXPECT_EQ(joined(api::compat::testing::check_audit_history(history)), "");
  EXPECT_EQ(history.at("events").at(0).at("event").at("type"), "run.created");
  auto newest = json::parse(ar({"run", "audit", id, "--limit", "1", "--output-format", "json"}).out);
  EXPECT_EQ(newest.at("events").as_array().size(), 1u);
  EXPECT_TRUE(contains(ar({"run", "audit", id}).out, "  run.created ")) << "text: one line per event";
  EXPECT_EQ(ar({"run", "audit"}).code, 1) << "theirs: 1 for a usage mistake here";
  EXPECT_EQ(ar({"run", "audit", "no-such-run"}).code, 2) << "theirs: 2 for an unknown run";

  auto scheduled = ar({"run", "schedule", id, "--delay", "30m", "--output-format", "json"});
  ASSERT_EQ(scheduled.code, 0) << scheduled.err;
  EXPECT_EQ(json::parse(scheduled.out).at("scheduleState"), "future");
  EXPECT_TRUE(contains(ar({"run", "schedule", "disable", id}).out, "agent-runner: disabled schedule for run " + id))
      << "paused";
  EXPECT_EQ(ar({"run", "schedule", "clear", id}).out, "agent-runner: cleared schedule for run " + id + "\n");
  EXPECT_EQ(ar({"run", "schedule", id}).code, 3);                              // no --at, --delay or --cron
  EXPECT_EQ(ar({"run", "schedule", id, "--at", "x", "--mode", "reset"}).code, 3);  // --mode with --cron only

  auto reconfigured = ar({"run", "reconfigure", id, "--var", "feature=signup", "ship", "it"});
  ASSERT_EQ(reconfigured.code, 0) << reconfigured.err;
  EXPECT_EQ(reconfigured.out, "agent-runner: reconfigured run " + id + "\n");
  auto fields = json::parse(ar({"run", "status", id, "--output-format", "json", "--field", "message"}).out);
  EXPECT_EQ(fields.at("message"), "ship it");

  auto ready = ar({"run", "ready", id, "--schedule-delay", "1h"});
  ASSERT_EQ(ready.code, 0) << ready.err;
  EXPECT_TRUE(contains(ready.out, "agent-runner: promoted run " + id + " to ready\nschedule: One-time at ")) << ready.out;
  auto reset = ar({"run", "reset", id, "--output-format", "json"});
  ASSERT_EQ(reset.code, 0) << reset.err;
  EXPECT_EQ(json::parse(reset.out), (json::object{{"runId", id}, {"status", "initialized"}}));

  ASSERT_EQ(ar({"run", "archive", id}).code, 0);
  auto deleted = ar({"run", "delete", id, "--output-format", "json"});
  ASSERT_EQ(deleted.code, 0) << deleted.err;
  EXPECT_EQ(json::parse(deleted.out), (json::object{{"runId", id}}));
  EXPECT_EQ(ar({"run", "environment", "status", id}).code, 3);
}

// `list` and `show`: our runs and definitions in its shapes.
TEST_P(AgentRunnerVerbsTest, ListAndShowAnswerInItsShapes) {
  const std::string id = init_feature_run();
  ASSERT_FALSE(id.empty());
  auto here = ar({"list", "runs", "--output-format", "json"});
  ASSERT_EQ(here.code, 0) << here.err;
  auto runs = json::parse(here.out).as_array();
  ASSERT_EQ(runs.size(), 1u) << "the current directory's runs";
  EXPECT_EQ(joined(api::compat::testing::check_run_summary(runs.at(0))), "");
  EXPECT_EQ(runs.at(0).at("runId"), json::value(id));
  auto global = ar({"list", "runs", "--global"});
  EXPECT_EQ(global.out.rfind(id + " [initialized] name=<unnamed> 0/2 repo=", 0), 0u) << global.out;
  EXPECT_EQ(json::parse(ar({"list", "runs", "--repo", "no-such-repo", "--output-format", "json"}).out).as_array().size(),
            0u);
  EXPECT_EQ(ar({"list", "runs", "--global", "--repo", "x"}).code, 3);

  auto agents = ar({"list", "agents", "--output-format", "json"});
  ASSERT_EQ(agents.code, 0) << agents.err;
  auto list = json::parse(agents.out);
  EXPECT_EQ(joined(api::compat::testing::check_definition_list(list)), "");
  EXPECT_EQ(list.at("kind"), "agent");
  EXPECT_TRUE(contains(ar({"list", "agents"}).out, "  worker\n"));
  auto shown = ar({"show", "agent", "worker", "--output-format", "json"});
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_EQ(joined(api::compat::testing::check_definition_detail(json::parse(shown.out))), "");
  EXPECT_EQ(ar({"show", "agent", "worker"}).out.rfind("Agent: worker\n", 0), 0u);
  auto direct = ar({"show", "launcher", "direct", "--output-format", "json"});
  ASSERT_EQ(direct.code, 0) << direct.err;
  EXPECT_EQ(joined(api::compat::testing::check_definition_detail(json::parse(direct.out))), "");
  EXPECT_EQ(ar({"show", "environment", "x"}).code, 3);
  EXPECT_EQ(ar({"show", "agent", "nobody"}).code, 3);
  EXPECT_EQ(ar({"list", "nope"}).code, 3);
}

INSTANTIATE_TEST_SUITE_P(Modes, AgentRunnerVerbsTest, ::testing::Values(CliMode::embedded, CliMode::connected),
                         mode_name);

}  // namespace
}  // namespace agentry::integration
