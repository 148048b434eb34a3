// The agentry CLI as a user (or an agent) runs it, in both modes: embedded (the CLI
// drives its runs on the shared database) and connected (WebSocket JSON-RPC to a
// daemon). Every test here runs in both and must see the same behaviour.
#include "cli_fixture.hpp"
#include "support/test_store.hpp"

#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;

std::string run_id_from(const CliResult& r) {
  auto nl = r.out.find('\n');
  auto first = r.out.substr(0, nl);
  auto mark = first.find("run ");
  if (mark == std::string::npos) return {};
  auto id = first.substr(mark + 4);
  return id.substr(0, id.find(' '));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_P(CliTest, RunFollowsAMockRunToSuccess) {
  auto r = cli({"run", "talker", "-m", "go"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "── attempt 1 · session 0 · mock ──")) << r.out;
  EXPECT_TRUE(contains(r.out, "agent: hello world")) << r.out;
  EXPECT_TRUE(contains(r.out, "$ ls")) << r.out;
  EXPECT_TRUE(contains(r.out, "│ a.txt")) << r.out;
  EXPECT_TRUE(contains(r.out, "══ run success: the agent finished ══")) << r.out;
  auto id = run_id_from(r);
  ASSERT_FALSE(id.empty()) << r.out;
  EXPECT_EQ(show(id).at("status"), "success");

  // The same timeline afterwards, from history.
  auto logs = cli({"logs", id});
  EXPECT_EQ(logs.code, 0) << logs.err;
  EXPECT_TRUE(contains(logs.out, "agent: hello world")) << logs.out;
  auto audit = cli({"audit", id});
  EXPECT_EQ(audit.code, 0) << audit.err;
  EXPECT_TRUE(contains(audit.out, "run.started")) << audit.out;
}

TEST_P(CliTest, AskPrintsTheBackendsAnswerWithoutATurn) {
  auto r = cli({"run", "talker", "-m", "go"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto id = run_id_from(r);
  auto answered = cli({"ask", id, "what happened?"});
  EXPECT_EQ(answered.code, 0) << answered.err;
  EXPECT_TRUE(contains(answered.out, "status=success")) << answered.out;
  EXPECT_TRUE(contains(answered.out, "question=what happened?")) << answered.out;
  auto as_json = cli({"ask", id, "and now?", "--json"});
  ASSERT_EQ(as_json.code, 0) << as_json.err;
  auto body = boost::json::parse(as_json.out).as_object();
  EXPECT_EQ(body.at("runId").as_string(), id);
  EXPECT_TRUE(contains(std::string(body.at("answer").as_string()), "question=and now?"));
  EXPECT_NE(cli({"ask", id, "q", "--timeout", "0"}).code, 0);
  auto types = audit_types(id);
  EXPECT_EQ(std::count(types.begin(), types.end(), "run.asked"), 2) << "each ask is audited";
  EXPECT_EQ(show(id).at("status"), "success");
}

TEST_P(CliTest, ExitCodesFollowHowTheRunEnded) {
  EXPECT_EQ(cli({"run", "failer", "-m", "go"}).code, 4);

  // An attempt that leaves its tasks undone, with no retry left: exhausted.
  write_agent("idler", "mock", "{steps: [{say: 'not today'}]}");
  auto exhausted = cli({"run", "idler", "-a", "feature", "--var", "feature=x", "--max-retries", "0"});
  EXPECT_EQ(exhausted.code, 1) << exhausted.out << exhausted.err;

  // An agent that reports a blocked task from inside its run: blocked.
  write_agent("stuck", "mock", "{steps: [" + exec_agentry({"task", "set", "plan", "--status", "blocked"}) + "]}");
  auto blocked = cli({"run", "stuck", "-a", "feature", "--var", "feature=x"});
  EXPECT_EQ(blocked.code, 2) << blocked.out << blocked.err;
  EXPECT_TRUE(contains(blocked.out, "══ run blocked")) << blocked.out;
}

TEST_P(CliTest, RefusalsExit3WithAMessage) {
  auto unknown = cli({"run", "nobody", "-m", "x"});
  EXPECT_EQ(unknown.code, 3);
  EXPECT_TRUE(contains(unknown.err, "agentry: no agent named 'nobody'")) << unknown.err;
  auto missing_var = cli({"run", "worker", "-a", "feature"});
  EXPECT_EQ(missing_var.code, 3);
  EXPECT_TRUE(contains(missing_var.err, "feature")) << missing_var.err;
  EXPECT_EQ(cli({"show", "no-such-run"}).code, 3);
  EXPECT_EQ(cli({"run", "talker"}).code, 3);  // neither --assignment nor --message
  EXPECT_EQ(cli({"list", "--limit", "0"}).code, 3);

  auto done = cli({"run", "talker", "-m", "go"});
  ASSERT_EQ(done.code, 0) << done.err;
  auto conflict = cli({"abort", run_id_from(done)});
  EXPECT_EQ(conflict.code, 3);
  EXPECT_TRUE(contains(conflict.err, "not active")) << conflict.err;
}

TEST_P(CliTest, JsonOutputIsTheOperationsResult) {
  auto done = cli({"run", "talker", "-m", "go", "--json"});
  ASSERT_EQ(done.code, 0) << done.err;
  auto run = json::parse(done.out).at("run").as_object();
  EXPECT_EQ(run.at("status"), "success");
  const std::string id(run.at("runId").as_string());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"list", "--json"}, {"list", "--global", "--json"}, {"show", id, "--json"},
        {"logs", id, "--json"}, {"audit", id, "--json"}, {"backends", "--json"}, {"definitions", "--json"},
        {"definitions", "agents", "talker", "--json"}}) {
    auto r = cli(args);
    ASSERT_EQ(r.code, 0) << args[0] << ": " << r.err;
    json::error_code ec;
    auto v = json::parse(r.out, ec);
    EXPECT_FALSE(ec) << args[0] << ": " << r.out;
    EXPECT_TRUE(v.is_object()) << r.out;
  }
  auto list = json::parse(cli({"list", "--json"}).out).as_object();
  ASSERT_EQ(list.at("runs").as_array().size(), 1u);  // default scope: the current directory
  EXPECT_EQ(list.at("runs").at(0).at("runId"), json::value(id));
  auto logs = json::parse(cli({"logs", id, "--json"}).out).as_object();
  EXPECT_EQ(logs.at("events").at(0).at("kind"), "attempt.started");
}

TEST_P(CliTest, TaskCommandsEditARunsTasks) {
  auto init = cli({"init", "worker", "-a", "feature", "--var", "feature=dark mode", "--name", "Dark"});
  ASSERT_EQ(init.code, 0) << init.err;
  const std::string id = init.out.substr(0, init.out.find('\n'));
  EXPECT_EQ(show(id).at("status"), "initialized");

  EXPECT_EQ(cli({"task", "set", "plan", "--status", "in_progress", "--run", id}).code, 0);
  EXPECT_EQ(cli({"task", "append-notes", "plan", "first line", "--run", id}).code, 0);
  // Inside a run, AGENTRY_RUN_ID names it.
  EXPECT_EQ(cli({"task", "append-notes", "plan", "second line"}, {{"AGENTRY_RUN_ID", id}}).code, 0);
  auto added = cli({"task", "add", "Write docs", "--id", "docs", "--body", "All of them", "--run", id});
  EXPECT_EQ(added.code, 0) << added.err;
  EXPECT_EQ(cli({"task", "delete", "docs", "--run", id}).code, 0);
  auto gone = cli({"task", "show", "docs", "--run", id});
  EXPECT_EQ(gone.code, 3);

  auto list = cli({"task", "list", "--run", id, "--json"});
  ASSERT_EQ(list.code, 0) << list.err;
  auto tasks = json::parse(list.out).at("tasks").as_array();
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks.at(0).at("status"), "in_progress");
  EXPECT_EQ(tasks.at(0).at("notes"), "first line\nsecond line");
  auto human = cli({"task", "list", "--run", id});
  EXPECT_TRUE(contains(human.out, "plan   in_progress  Plan dark mode")) << human.out;

  EXPECT_EQ(cli({"task", "set", "plan", "--status", "nonsense", "--run", id}).code, 3);
  EXPECT_EQ(cli({"task", "set", "nope", "--status", "completed", "--run", id}).code, 3);
  EXPECT_EQ(cli({"task", "list"}).code, 3);  // which run?

  EXPECT_EQ(cli({"ready", id}).code, 0);
  EXPECT_EQ(show(id).at("status"), "ready");
}

TEST_P(CliTest, AnAgentCompletesItsTasksThroughTheCli) {
  write_agent("doer", "mock",
              "{steps: [" + exec_agentry({"task", "set", "plan", "--status", "completed", "--notes", "planned"}) + ", " +
                  exec_agentry({"task", "append-notes", "build", "built it"}) + ", " +
                  exec_agentry({"task", "set", "build", "-s", "completed"}) + "]}");
  auto r = cli({"run", "doer", "-a", "feature", "--var", "feature=x"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "updated task plan of run")) << r.out;  // the agent's own CLI output, as tool output
  const std::string id = run_id_from(r);
  auto run = show(id);
  EXPECT_EQ(run.at("status"), "success");
  EXPECT_EQ(run.at("tasks").at(0).at("notes"), "planned");
  EXPECT_EQ(run.at("tasks").at(1).at("notes"), "built it");
  EXPECT_EQ(run.at("tasks").at(1).at("status"), "completed");
}

TEST_P(CliTest, QueueCommandsManageFollowUpsOfALiveRun) {
  auto follower = cli_start({"run", "hanger", "-m", "go"});
  std::string id;
  for (int i = 0; i < 600 && id.empty(); ++i) {
    auto runs = all_runs();
    if (!runs.empty() && runs.at(0).at("status") == "running") id = std::string(runs.at(0).at("runId").as_string());
    else std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(id.empty());

  auto first = cli({"queue", "add", id, "check the tests", "--json"});
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string first_id(json::parse(first.out).at("message").at("id").as_string());
  auto second = cli({"queue", "add", id, "then the docs"});
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_TRUE(contains(second.out, "it is sent when the current session ends")) << second.out;

  auto listed = cli({"queue", "list", id});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_TRUE(contains(listed.out, "check the tests")) << listed.out;
  EXPECT_TRUE(contains(listed.out, "then the docs")) << listed.out;

  auto removed = cli({"queue", "remove", id, first_id});
  ASSERT_EQ(removed.code, 0) << removed.err;
  EXPECT_TRUE(contains(removed.out, "removed queued message " + first_id)) << removed.out;
  EXPECT_EQ(cli({"queue", "remove", id, first_id}).code, 3);  // already gone
  auto left = json::parse(cli({"queue", "list", id, "--json"}).out).at("messages").as_array();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left.at(0).at("text"), "then the docs");

  // An abort keeps the queue for the next resume; a run at rest takes no new messages.
  if (connected() || test::testing_on_postgresql()) {
    // Embedded on a shared store, the abort is recorded for the follower's process, which
    // holds the run's lease and carries it out (engine/run_requests.cpp).
    ASSERT_EQ(cli({"abort", id}).code, 0);
  } else {
    // Embedded on SQLite, the follower's process holds the agent: another process cannot
    // stop it, so it says where to; Ctrl-C there does.
    auto elsewhere = cli({"abort", id});
    EXPECT_EQ(elsewhere.code, 3);
    EXPECT_TRUE(contains(elsewhere.err, "is driven by the agentry command with pid " + std::to_string(follower.pid)))
        << elsewhere.err;
    EXPECT_EQ(show(id).at("status"), "running");
    ASSERT_EQ(::kill(follower.pid, SIGINT), 0);
  }
  EXPECT_EQ(cli_wait(follower).code, 130);
  EXPECT_EQ(json::parse(cli({"queue", "list", id, "--json"}).out).at("messages").as_array().size(), 1u);
  auto refused = cli({"queue", "add", id, "too late"});
  EXPECT_EQ(refused.code, 3);
  EXPECT_FALSE(refused.err.empty());
}

TEST_P(CliTest, AMessageQueuedFromInsideARunStartsItsNextSession) {
  // The agent queues a follow-up for its own run once (the flag file stops it the
  // second time); when the session ends, the follow-up starts the next one.
  const std::string script = "[ -e queued.flag ] && exit 0; touch queued.flag; exec \"" +
                             test::DaemonProcess::binary_path().string() +
                             "\" queue add \"$AGENTRY_RUN_ID\" 'and now the docs'";
  write_agent("queuer", "mock",
              "{steps: [{exec: ['/bin/sh', '-c', " + json::serialize(json::value(script)) + "]}, {say: done}]}");
  auto r = cli({"run", "queuer", "-m", "write the code"});
  const std::string id = run_id_from(r);
  ASSERT_FALSE(id.empty()) << r.out << r.err;
  auto run = wait_for_run(id, [](const json::object& now) {
    return now.at("sessions").as_array().size() == 2 && now.at("status") == "success";
  });
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(run.at("queuedResumeMessages").as_array().empty()) << json::serialize(run);
  auto logs = cli({"logs", id});
  EXPECT_TRUE(contains(logs.out, "and now the docs")) << logs.out;
}

TEST_P(CliTest, NestedRunsRecordLineageAndStopAtTheDepthLimit) {
  // Each run starts another of the same agent: lineage grows until the 8th refuses.
  write_agent("recurse", "mock", "{steps: [" + exec_agentry({"run", "recurse", "-m", "deeper"}) + "]}");
  auto top = cli({"run", "recurse", "-m", "go", "--group", "wave"}, {}, std::chrono::seconds(170));
  EXPECT_EQ(top.code, 4) << top.out << top.err;  // the deepest exec failed, and every parent with it
  auto runs = all_runs();
  ASSERT_EQ(runs.size(), 8u);
  std::map<std::string, std::string> parent_of;
  for (const auto& run : runs) {
    EXPECT_EQ(run.at("runGroupId"), "wave");
    EXPECT_EQ(run.at("status"), "error");
    parent_of[std::string(run.at("runId").as_string())] =
        run.at("parentRunId").is_null() ? "" : std::string(run.at("parentRunId").as_string());
  }
  // One chain: exactly one root, every other run's parent is a run of the chain.
  int roots = 0;
  for (const auto& [id, parent] : parent_of) {
    if (parent.empty()) ++roots;
    else EXPECT_TRUE(parent_of.count(parent)) << id;
  }
  EXPECT_EQ(roots, 1);
  bool refused = false;
  for (const auto& [id, parent] : parent_of)
    if (contains(cli({"logs", id}).out, "the limit is 8")) refused = true;
  EXPECT_TRUE(refused);
}

TEST_P(CliTest, PassiveRunEndsWhenAnotherProcessBlocksATask) {
  auto follower = cli_start({"run", "worker", "-a", "feature", "--var", "feature=x"});
  std::string id;
  for (int i = 0; i < 600 && id.empty(); ++i) {
    auto runs = all_runs();
    if (!runs.empty() && runs.at(0).at("status") == "running") id = std::string(runs.at(0).at("runId").as_string());
    else std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(cli({"task", "set", "plan", "--status", "completed", "--run", id}).code, 0);
  EXPECT_EQ(cli({"task", "set", "build", "--status", "blocked", "--run", id}).code, 0);
  auto r = cli_wait(follower);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "task plan: pending → completed")) << r.out;
  EXPECT_TRUE(contains(r.out, "══ run blocked: a task is blocked ══")) << r.out;
}

TEST_P(CliTest, CtrlCWhileFollowingAbortsTheRun) {
  auto follower = cli_start({"run", "hanger", "-m", "go"});
  std::string id;
  for (int i = 0; i < 600 && id.empty(); ++i) {
    auto runs = all_runs();
    if (!runs.empty() && runs.at(0).at("totalAttemptCount").as_int64() == 1)
      id = std::string(runs.at(0).at("runId").as_string());
    else std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(id.empty());
  // The attempt is live once the agent spoke.
  for (int i = 0; i < 600 && !contains(cli({"logs", id}).out, "waiting"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(::kill(follower.pid, SIGINT), 0);
  auto r = cli_wait(follower);
  EXPECT_EQ(r.code, 130) << r.out << r.err;
  auto run = show(id);
  EXPECT_EQ(run.at("status"), "aborted");
  EXPECT_TRUE(contains(std::string(run.at("statusReason").as_string()), "Ctrl-C")) << json::serialize(run);
}

TEST_P(CliTest, DetachIsForConnectedModeOnly) {
  auto r = cli({"run", "hanger", "-m", "go", "--detach"});
  if (!connected()) {
    EXPECT_EQ(r.code, 3);
    EXPECT_TRUE(contains(r.err, "--detach needs a daemon")) << r.err;
    EXPECT_TRUE(all_runs().empty());
    return;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string id = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(show(id).at("status"), "running");
  auto follower = cli_start({"logs", id, "-f"});
  auto aborted = cli({"abort", id, "--reason", "enough"});
  EXPECT_EQ(aborted.code, 0) << aborted.err;
  auto logs = cli_wait(follower);
  EXPECT_EQ(logs.code, 130) << logs.out << logs.err;  // logs -f exits with the run's code: aborted
  EXPECT_TRUE(contains(logs.out, "══ run aborted: enough ══")) << logs.out;
}

TEST_P(CliTest, ArchiveResetAndDelete) {
  auto done = cli({"run", "talker", "-m", "go"});
  ASSERT_EQ(done.code, 0) << done.err;
  const std::string id = run_id_from(done);
  EXPECT_EQ(cli({"delete", id}).code, 3);  // only archived runs
  EXPECT_EQ(cli({"reset", id}).code, 0);
  EXPECT_EQ(show(id).at("status"), "initialized");
  EXPECT_EQ(cli({"archive", id}).code, 0);
  EXPECT_TRUE(json::parse(cli({"list", "--json"}).out).at("runs").as_array().empty());
  EXPECT_EQ(json::parse(cli({"list", "--all", "--json"}).out).at("runs").as_array().size(), 1u);
  EXPECT_EQ(cli({"unarchive", id}).code, 0);
  EXPECT_EQ(cli({"archive", id}).code, 0);
  EXPECT_EQ(cli({"delete", id}).code, 0);
  EXPECT_EQ(cli({"show", id}).code, 3);
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST_P(CliTest, ScheduleCommandsSetShowAndRemoveASchedule) {
  auto init = cli({"init", "worker", "-m", "x"});
  ASSERT_EQ(init.code, 0) << init.err;
  const std::string id = init.out.substr(0, init.out.find('\n'));

  auto set = cli({"schedule", "set", id, "--cron", "0 9 * * MON-FRI", "--timezone", "Europe/Berlin", "--mode", "reset",
                  "--continue-on-failure"});
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_TRUE(contains(set.out, "run " + id + " schedule: cron \"0 9 * * MON-FRI\" in Europe/Berlin, mode reset, "
                                "continues on failure; blocked, next ")) << set.out;
  auto run = api_run(id);
  EXPECT_EQ(run.at("schedule").at("cron"), "0 9 * * MON-FRI");
  EXPECT_EQ(run.at("schedule").at("continueOnFailure"), true);
  EXPECT_EQ(run.at("scheduleState").at("state"), "blocked");

  auto clear_recurring = cli({"schedule", "clear", id});
  EXPECT_EQ(clear_recurring.code, 3);
  EXPECT_TRUE(contains(clear_recurring.err, "disable it instead")) << clear_recurring.err;
  auto disabled = cli({"schedule", "disable", id});
  EXPECT_EQ(disabled.code, 0) << disabled.err;
  EXPECT_TRUE(contains(disabled.out, "; disabled")) << disabled.out;
  EXPECT_EQ(cli({"schedule", "enable", id, "--json"}).code, 0);

  auto once = cli({"schedule", "set", id, "--delay", "90m", "--json"});
  ASSERT_EQ(once.code, 0) << once.err;
  EXPECT_EQ(json::parse(once.out).at("run").at("schedule").at("delay"), "90m");
  auto cleared = cli({"schedule", "clear", id});
  EXPECT_EQ(cleared.code, 0) << cleared.err;
  EXPECT_EQ(cleared.out, "run " + id + " has no schedule\n");

  // Refusals: a bad cron, an unknown zone, options that need --cron, two kinds at once.
  EXPECT_EQ(cli({"schedule", "set", id, "--cron", "61 * * * *"}).code, 3);
  auto zone = cli({"schedule", "set", id, "--cron", "0 9 * * *", "--timezone", "Nowhere/Land"});
  EXPECT_EQ(zone.code, 3);
  EXPECT_TRUE(contains(zone.err, "unknown timezone 'Nowhere/Land'")) << zone.err;
  EXPECT_EQ(cli({"schedule", "set", id, "--delay", "5m", "--mode", "clone"}).code, 3);
  EXPECT_EQ(cli({"schedule", "set", id, "--delay", "5m", "--cron", "0 9 * * *"}).code, 3);
  EXPECT_EQ(cli({"schedule", "set", id}).code, 3);  // none of them
  EXPECT_EQ(cli({"schedule", "enable", "no-such-run"}).code, 3);
  auto help = cli({"schedule", "set", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(contains(help.out, "--cron")) << help.out;
  EXPECT_TRUE(contains(help.out, "--timezone")) << help.out;
}

TEST_P(CliTest, ReadyWithAScheduleOptionPromotesAndSchedules) {
  auto init = cli({"init", "worker", "-m", "x"});
  ASSERT_EQ(init.code, 0) << init.err;
  const std::string id = init.out.substr(0, init.out.find('\n'));

  auto bad = cli({"ready", id, "--cron", "* * * * *"});  // more often than the minimum interval
  EXPECT_EQ(bad.code, 3) << bad.out;
  EXPECT_EQ(api_run(id).at("status"), "initialized");

  auto ready = cli({"ready", id, "--delay", "2h"});
  ASSERT_EQ(ready.code, 0) << ready.err;
  EXPECT_TRUE(contains(ready.out, "run " + id + ": ready\nrun " + id + " schedule: once at ")) << ready.out;
  auto run = api_run(id);
  EXPECT_EQ(run.at("status"), "ready");
  EXPECT_EQ(run.at("schedule").at("delay"), "2h");
}

TEST_P(CliTest, NameNotePinAndGroupChangeTheRun) {
  auto init = cli({"init", "worker", "-m", "x"});
  ASSERT_EQ(init.code, 0) << init.err;
  const std::string id = init.out.substr(0, init.out.find('\n'));

  auto named = cli({"name", id, "Dark mode"});
  EXPECT_EQ(named.code, 0) << named.err;
  EXPECT_EQ(named.out, "named run " + id + ": Dark mode\n");
  auto noted = cli({"note", id, "check the contrast\nand the icons", "--json"});
  ASSERT_EQ(noted.code, 0) << noted.err;
  EXPECT_EQ(json::parse(noted.out).at("run").at("note"), "check the contrast\nand the icons") << noted.out;
  EXPECT_EQ(cli({"pin", id}).out, "pinned run " + id + "\n");
  auto grouped = cli({"group", id, "wave-1"});
  EXPECT_EQ(grouped.code, 0) << grouped.err;
  EXPECT_EQ(grouped.out, "run " + id + " is in group wave-1\n");

  auto run = api_run(id);
  EXPECT_EQ(run.at("name"), "Dark mode");
  EXPECT_EQ(run.at("note"), "check the contrast\nand the icons");
  EXPECT_TRUE(run.at("notePresent").as_bool());
  EXPECT_TRUE(run.at("pinned").as_bool());
  EXPECT_EQ(run.at("runGroupId"), "wave-1");
  auto in_group = json::parse(cli({"list", "--group", "wave-1", "--json"}).out).at("runs").as_array();
  ASSERT_EQ(in_group.size(), 1u);
  EXPECT_EQ(in_group.at(0).at("runId"), json::value(id));

  EXPECT_EQ(cli({"name", id, "--clear"}).out, "cleared the name of run " + id + "\n");
  EXPECT_EQ(cli({"note", id, "--clear"}).code, 0);
  EXPECT_EQ(cli({"unpin", id}).out, "unpinned run " + id + "\n");
  auto cleared = cli({"group", id, "--clear", "--json"});
  ASSERT_EQ(cleared.code, 0) << cleared.err;
  EXPECT_EQ(json::parse(cleared.out).at("run").at("runGroupId"), json::value(id));
  run = api_run(id);
  EXPECT_TRUE(run.at("name").is_null()) << json::serialize(run);
  EXPECT_TRUE(run.at("note").is_null()) << json::serialize(run);
  EXPECT_FALSE(run.at("pinned").as_bool());
  EXPECT_EQ(run.at("runGroupId"), json::value(id));

  auto types = audit_types(id);
  for (const char* type : {"run.renamed", "run.note_set", "run.pinned_set", "run.group_set"})
    EXPECT_TRUE(has(types, type)) << type;

  // Refusals: an unknown run, missing or contradictory arguments, a malformed group.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"name", "no-such-run", "x"}, {"note", "no-such-run", "x"}, {"pin", "no-such-run"},
        {"unpin", "no-such-run"}, {"group", "no-such-run", "g"}, {"group", "no-such-run", "--clear"},
        {"name", id}, {"name", id, ""}, {"name", id, "x", "--clear"}, {"note", id}, {"group", id},
        {"group", id, "back\\slash"}, {"group", id, "../up"}, {"pin"}}) {
    auto r = cli(args);
    EXPECT_EQ(r.code, 3) << args[0] << " " << (args.size() > 2 ? args[2] : "") << ": " << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << args[0];
  }
  auto unknown = cli({"name", "no-such-run", "x"});
  EXPECT_TRUE(contains(unknown.err, "no run with id 'no-such-run'")) << unknown.err;
  run = api_run(id);
  EXPECT_TRUE(run.at("name").is_null());
  EXPECT_EQ(run.at("runGroupId"), json::value(id));
}

TEST_P(CliTest, RunAndInitPrintTheRenderedCallerInstructionsOfAFreshRun) {
  dir_.write_file("config/assignments/guided/assignment.md", R"(---
schemaVersion: 1
message: "@mock {\"say\": \"on it\"}"
callerInstructions: |
  Review {{feature}} when run {{run_id}} ends.
vars:
  feature:
    type: string
    required: true
---
)");
  auto init = cli({"init", "talker", "-a", "guided", "--var", "feature=search"});
  ASSERT_EQ(init.code, 0) << init.err;
  const std::string id = init.out.substr(0, init.out.find('\n'));
  EXPECT_TRUE(contains(init.err, "-- caller instructions --\nReview search when run " + id +
                                     " ends.\n-- end of caller instructions --\n"))
      << init.err;
  EXPECT_EQ(init.out, id + "\n") << "stdout stays the run id";
  EXPECT_EQ(api_run(id).at("callerInstructions"), json::value("Review search when run " + id + " ends.\n"));

  // Reconfigured vars re-render them; a resume does not print them again.
  ASSERT_EQ(cli({"reconfigure", id, "--var", "feature=export"}).code, 0);
  EXPECT_EQ(api_run(id).at("callerInstructions"), json::value("Review export when run " + id + " ends.\n"));
  auto resumed = cli({"resume", id});
  EXPECT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_FALSE(contains(resumed.err, "caller instructions")) << resumed.err;

  auto run = cli({"run", "talker", "-a", "guided", "--var", "feature=login"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(contains(run.err, "\nReview login when run ")) << run.err;
  EXPECT_FALSE(contains(run.out, "caller instructions")) << run.out;
  auto json_init = cli({"init", "talker", "-a", "guided", "--var", "feature=json", "--json"});
  ASSERT_EQ(json_init.code, 0) << json_init.err;
  EXPECT_TRUE(contains(json_init.err, "Review json when run")) << json_init.err;
  EXPECT_NO_THROW(json::parse(json_init.out)) << json_init.out;

  // No instructions, nothing printed.
  auto plain = cli({"init", "worker", "-a", "feature", "--var", "feature=x"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_FALSE(contains(plain.err, "caller instructions")) << plain.err;
}

TEST_P(CliTest, ReconfigureAndBriefOfAnInitializedRun) {
  auto init = cli({"init", "worker", "-a", "feature", "--var", "feature=search"});
  ASSERT_EQ(init.code, 0) << init.err;
  const std::string id = init.out.substr(0, init.out.find('\n'));
  auto brief = cli({"brief", id});
  EXPECT_EQ(brief.code, 0) << brief.err;
  EXPECT_EQ(brief.out, "You are the worker.\n\nWork carefully.\n\nBuild search.\n");

  auto r = cli({"reconfigure", id, "--var", "feature=dark mode"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "reconfigured run " + id + ": initialized\n");
  auto run = api_run(id);
  EXPECT_EQ(run.at("vars").at("feature"), "dark mode");
  EXPECT_EQ(run.at("message"), "Build dark mode.");
  EXPECT_EQ(run.at("tasks").at(0).at("title"), "Plan dark mode");  // pending assignment tasks follow
  auto as_json = cli({"brief", id, "--json"});
  ASSERT_EQ(as_json.code, 0) << as_json.err;
  auto result = json::parse(as_json.out).as_object();
  EXPECT_EQ(result.at("runId"), json::value(id));
  EXPECT_EQ(result.at("brief"), run.at("brief"));
  EXPECT_TRUE(contains(std::string(result.at("brief").as_string()), "Build dark mode.")) << as_json.out;

  dir_.write_file("work/message.md", "Only the search box.\n");
  auto from_file = cli({"reconfigure", id, "--message-file", "message.md", "--json"});
  ASSERT_EQ(from_file.code, 0) << from_file.err;
  EXPECT_EQ(json::parse(from_file.out).at("run").at("message"), "Only the search box.\n");
  auto from_stdin = cli_with_input({"reconfigure", id, "--message-file", "-"}, "From standard input.");
  EXPECT_EQ(from_stdin.code, 0) << from_stdin.err;
  EXPECT_EQ(api_run(id).at("message"), "From standard input.");
  EXPECT_TRUE(has(audit_types(id),
                  "run.reconfigured"));

  // Refusals change nothing.
  EXPECT_EQ(cli({"reconfigure", id}).code, 3);                                     // nothing to change
  EXPECT_EQ(cli({"reconfigure", id, "--unset-var", "feature"}).code, 3);           // required
  EXPECT_EQ(cli({"reconfigure", id, "-m", "x", "--message-file", "message.md"}).code, 3);
  EXPECT_EQ(cli({"reconfigure", id, "--message-file", "missing.md"}).code, 3);
  EXPECT_EQ(cli({"reconfigure", "no-such-run", "-m", "x"}).code, 3);
  EXPECT_EQ(cli({"brief", "no-such-run"}).code, 3);
  EXPECT_EQ(api_run(id).at("message"), "From standard input.");
  EXPECT_EQ(api_run(id).at("vars").at("feature"), "dark mode");

  // Only initialized runs.
  auto done = cli({"run", "talker", "-m", "go"});
  ASSERT_EQ(done.code, 0) << done.err;
  auto late = cli({"reconfigure", run_id_from(done), "-m", "too late"});
  EXPECT_EQ(late.code, 3);
  EXPECT_TRUE(contains(late.err, "only an initialized run can be reconfigured")) << late.err;
}

TEST_P(CliTest, StatusIsOneLineAndExitsWithTheRunsCode) {
  auto init = cli({"init", "worker", "-a", "feature", "--var", "feature=x"});
  ASSERT_EQ(init.code, 0) << init.err;
  const std::string initialized = init.out.substr(0, init.out.find('\n'));
  auto r = cli({"status", initialized});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, initialized + " initialized · tasks 0/2 completed · 0 attempts, 0 sessions\n");

  auto done = cli({"run", "talker", "-m", "go"});
  ASSERT_EQ(done.code, 0) << done.err;
  auto success = cli({"status", run_id_from(done)});
  EXPECT_EQ(success.code, 0) << success.err;
  EXPECT_TRUE(contains(success.out, run_id_from(done) + " success: the agent finished · no tasks · 1 attempt, 1 session"))
      << success.out;
  auto failed = cli({"run", "failer", "-m", "go"});
  ASSERT_EQ(failed.code, 4);
  auto error = cli({"status", run_id_from(failed), "--json"});
  EXPECT_EQ(error.code, 4);
  EXPECT_EQ(json::parse(error.out).at("run").at("status"), "error") << error.out;

  // A live run: its session, then the code of how it ended.
  auto follower = cli_start({"run", "hanger", "-m", "go"});
  std::string id;
  for (int i = 0; i < 600 && id.empty(); ++i) {
    for (const auto& run : all_runs())
      if (run.at("agent") == "hanger" && run.at("status") == "running") id = std::string(run.at("runId").as_string());
    if (id.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(id.empty());
  auto live = cli({"status", id});
  EXPECT_EQ(live.code, 0) << live.err;
  EXPECT_TRUE(contains(live.out, id + " running · no tasks · ")) << live.out;
  EXPECT_TRUE(contains(live.out, "session 0 live since ")) << live.out;
  if (connected()) ASSERT_EQ(cli({"abort", id}).code, 0);
  else ASSERT_EQ(::kill(follower.pid, SIGINT), 0);
  EXPECT_EQ(cli_wait(follower).code, 130);
  auto aborted = cli({"status", id});
  EXPECT_EQ(aborted.code, 130) << aborted.out << aborted.err;
  EXPECT_TRUE(contains(aborted.out, id + " aborted")) << aborted.out;

  auto unknown = cli({"status", "no-such-run"});
  EXPECT_EQ(unknown.code, 3);
  EXPECT_TRUE(contains(unknown.err, "no run with id 'no-such-run'")) << unknown.err;
  EXPECT_EQ(cli({"status"}).code, 3);
}

TEST_P(CliTest, AddTaskPutsTasksInPlaceBeforeTheRunStarts) {
  // The agent lists its tasks in its first attempt, and leaves them undone: exhausted.
  write_agent("lister", "mock", "{steps: [" + exec_agentry({"task", "list"}) + "]}");
  auto r = cli({"run", "lister", "-m", "go", "--add-task", "Write the docs", "--add-task", "Ship it", "--max-retries",
                "0"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "Write the docs")) << r.out;  // the agent's `task list`, as tool output
  EXPECT_TRUE(contains(r.out, "Ship it")) << r.out;
  const std::string id = run_id_from(r);
  ASSERT_FALSE(id.empty()) << r.out;
  auto run = api_run(id);
  auto tasks = run.at("tasks").as_array();
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks.at(0).at("title"), "Write the docs");
  EXPECT_EQ(tasks.at(1).at("title"), "Ship it");
  EXPECT_EQ(tasks.at(0).at("source"), "added");
  // Created, given its tasks, then started: one run, in that order.
  auto types = audit_types(id);
  ASSERT_GE(types.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(types.begin(), types.begin() + 4),
            (std::vector<std::string>{"run.initialized", "task.added", "task.added", "run.started"}));

  auto init = cli({"init", "worker", "-a", "feature", "--var", "feature=x", "--add-task", "Review", "--json"});
  ASSERT_EQ(init.code, 0) << init.err;
  auto initialized = json::parse(init.out).at("run").as_object();
  EXPECT_EQ(initialized.at("status"), "initialized");
  ASSERT_EQ(initialized.at("tasks").as_array().size(), 3u);
  EXPECT_EQ(initialized.at("tasks").at(2).at("title"), "Review");

  // A task the run refuses: nothing is left behind.
  dir_.write_file("config/assignments/locked/assignment.md",
                  "---\nschemaVersion: 1\nmessage: Do it.\nlockedFields: [tasks]\ntasks:\n  - id: one\n    title: One\n"
                  "---\nLocked.\n");
  const auto before = all_runs().size();
  auto locked = cli({"run", "worker", "-a", "locked", "--add-task", "Extra"});
  EXPECT_EQ(locked.code, 3) << locked.out << locked.err;
  EXPECT_TRUE(contains(locked.err, "locked")) << locked.err;
  EXPECT_TRUE(contains(locked.err, "was not kept")) << locked.err;
  EXPECT_EQ(all_runs().size(), before);
  EXPECT_EQ(cli({"init", "worker", "-m", "x", "--add-task", ""}).code, 3);
  EXPECT_EQ(all_runs().size(), before);
}

TEST_P(CliTest, MessageFileAndParentRun) {
  auto parent = cli({"init", "worker", "-m", "the parent"});
  ASSERT_EQ(parent.code, 0) << parent.err;
  const std::string parent_id = parent.out.substr(0, parent.out.find('\n'));

  dir_.write_file("work/ask.md", "Fix the flaky test.\nThen the docs.\n");
  auto from_file = cli({"init", "worker", "--message-file", "ask.md", "--parent-run", parent_id});
  ASSERT_EQ(from_file.code, 0) << from_file.err;
  auto run = api_run(from_file.out.substr(0, from_file.out.find('\n')));
  EXPECT_EQ(run.at("message"), "Fix the flaky test.\nThen the docs.\n");
  EXPECT_EQ(run.at("parentRunId"), json::value(parent_id));

  auto from_stdin = cli_with_input({"init", "worker", "--message-file", "-", "--json"}, "Piped in.");
  ASSERT_EQ(from_stdin.code, 0) << from_stdin.err;
  EXPECT_EQ(json::parse(from_stdin.out).at("run").at("message"), "Piped in.");

  // --parent-run wins over AGENTRY_PARENT_RUN_ID, which is the default otherwise.
  auto other = cli({"init", "worker", "-m", "other"});
  const std::string other_id = other.out.substr(0, other.out.find('\n'));
  auto explicit_parent =
      cli({"init", "worker", "-m", "x", "--parent-run", parent_id, "--json"}, {{"AGENTRY_PARENT_RUN_ID", other_id}});
  ASSERT_EQ(explicit_parent.code, 0) << explicit_parent.err;
  EXPECT_EQ(json::parse(explicit_parent.out).at("run").at("parentRunId"), json::value(parent_id));
  auto from_env = cli({"init", "worker", "-m", "x", "--json"}, {{"AGENTRY_PARENT_RUN_ID", other_id}});
  EXPECT_EQ(json::parse(from_env.out).at("run").at("parentRunId"), json::value(other_id));

  // A run started with a message file follows to its end like any other.
  dir_.write_file("work/go.md", "go");
  auto started = cli({"run", "talker", "--message-file", "go.md"});
  EXPECT_EQ(started.code, 0) << started.err;
  EXPECT_EQ(api_run(run_id_from(started)).at("message"), "go");

  const auto before = all_runs().size();
  EXPECT_EQ(cli({"init", "worker", "-m", "x", "--message-file", "ask.md"}).code, 3);
  EXPECT_EQ(cli({"init", "worker", "--message-file", "missing.md"}).code, 3);
  EXPECT_EQ(cli({"run", "talker", "--message-file", "missing.md"}).code, 3);
  auto no_parent = cli({"init", "worker", "-m", "x", "--parent-run", "no-such-run"});
  EXPECT_EQ(no_parent.code, 3);
  EXPECT_TRUE(contains(no_parent.err, "parent run 'no-such-run' does not exist")) << no_parent.err;
  EXPECT_EQ(all_runs().size(), before);
}

TEST_P(CliTest, DepsCommandsAndAfter) {
  auto first_line = [](const CliResult& r) { return r.out.substr(0, r.out.find('\n')); };
  auto help = cli({"deps", "--help"});
  EXPECT_EQ(help.code, 0);
  for (const char* word : {"list", "add", "remove", "clear", "group:<id>"})
    EXPECT_NE(help.out.find(word), std::string::npos) << word << "\n" << help.out;
  EXPECT_NE(cli({"run", "--help"}).out.find("--after"), std::string::npos);

  auto w = cli({"init", "worker", "-m", "x"});
  ASSERT_EQ(w.code, 0) << w.err;
  const std::string wid = first_line(w);
  ASSERT_EQ(cli({"task", "add", "One", "--id", "one", "--run", wid}).code, 0);
  auto b = cli({"init", "worker", "-m", "b", "--after", wid, "--after", "group:wave"});
  ASSERT_EQ(b.code, 0) << b.err;
  const std::string bid = first_line(b);
  auto listed = cli({"deps", "list", bid});
  EXPECT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find("dependencies waiting"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("run:" + wid), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("group:wave"), std::string::npos) << listed.out;
  EXPECT_NE(cli({"deps", "list", wid}).out.find(bid), std::string::npos);  // who waits on w

  auto self = cli({"deps", "add", bid, bid});
  EXPECT_EQ(self.code, 3);
  EXPECT_NE(self.err.find("cannot depend on itself"), std::string::npos) << self.err;
  auto duplicate = cli({"deps", "add", bid, "run:" + wid});
  EXPECT_EQ(duplicate.code, 3);
  EXPECT_NE(duplicate.err.find("already depends on run:" + wid), std::string::npos) << duplicate.err;
  auto cycle = cli({"deps", "add", wid, bid});
  EXPECT_EQ(cycle.code, 3);
  EXPECT_NE(cycle.err.find(wid + " -> " + bid + " -> " + wid), std::string::npos) << cycle.err;

  auto removed = cli({"deps", "remove", bid, "group:wave"});
  EXPECT_EQ(removed.code, 0) << removed.err;
  EXPECT_EQ(removed.out, "removed group:wave; run " + bid + " waits on run:" + wid + " (initialized)\n");
  auto refused = cli({"resume", bid});
  EXPECT_EQ(refused.code, 3);
  EXPECT_NE(refused.err.find("waits on run:" + wid + " (initialized)"), std::string::npos) << refused.err;
  auto cleared = cli({"deps", "clear", bid});
  EXPECT_EQ(cleared.code, 0) << cleared.err;
  EXPECT_EQ(cleared.out, "cleared the dependencies; run " + bid + " waits on nothing unmet\n");
  auto added = cli({"deps", "add", bid, "group:x"});
  EXPECT_EQ(added.out, "added group:x; run " + bid + " waits on group:x (no runs in it)\n") << added.err;
  auto types = audit_types(bid);
  for (const char* type : {"run.dependency_added", "run.dependency_removed", "run.dependencies_cleared"})
    EXPECT_NE(std::find(types.begin(), types.end(), type), types.end()) << type;

  // `run --after` a run that has not succeeded: the run waits, ready.
  std::vector<std::string> waiting_args{"run", "worker", "-m", "c", "--after", wid};
  if (connected()) waiting_args.push_back("--detach");
  auto waiting = cli(waiting_args);
  EXPECT_EQ(waiting.code, 0) << waiting.err;
  const std::string cid = first_line(waiting);
  EXPECT_NE(waiting.err.find("waits on run:" + wid + " (initialized)"), std::string::npos) << waiting.err;
  EXPECT_EQ(show(cid).at("status"), "ready");
  EXPECT_NE(cli({"show", cid}).out.find("run:" + wid + " (not met)"), std::string::npos);

  // After one that succeeded: it runs now, and is followed to its end.
  auto done = cli({"run", "talker", "-m", "go"});
  ASSERT_EQ(done.code, 0) << done.err;
  auto after_done = cli({"run", "talker", "-m", "go", "--after", run_id_from(done)});
  EXPECT_EQ(after_done.code, 0) << after_done.err;
  EXPECT_EQ(show(run_id_from(after_done)).at("status"), "success");

  if (!connected()) {
    // An embedded process never starts waiting runs (they would end with it).
    EXPECT_EQ(show(cid).at("status"), "ready");
    return;
  }
  // The daemon starts c once w succeeds.
  auto resumed = cli({"resume", wid, "--detach"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  ASSERT_EQ(cli({"task", "set", "one", "--run", wid, "--status", "completed"}).code, 0);
  auto started = wait_for_run(cid, [](const json::object& r) { return r.at("status") == "running"; });
  EXPECT_EQ(started.at("dependencyState").at("state"), "satisfied");
}

TEST_P(CliTest, RunWithALabelNoDaemonHasWaitsReadySayingWhy) {
  EXPECT_NE(cli({"run", "--help"}).out.find("--label"), std::string::npos);
  std::vector<std::string> args{"run", "talker", "-m", "go", "--label", "gpu"};
  if (connected()) args.push_back("--detach");
  auto waiting = cli(args);
  EXPECT_EQ(waiting.code, 0) << waiting.err;
  const std::string id = waiting.out.substr(0, waiting.out.find('\n'));
  // Embedded, no daemon serves the home at all; connected, the one that does lacks the label.
  const std::string why = connected() ? "waiting for a member: no member has the label gpu"
                                      : "waiting for a member: no member is serving";
  EXPECT_NE(waiting.err.find(why), std::string::npos) << waiting.err;
  auto shown = show(id);
  EXPECT_EQ(shown.at("status"), "ready");
  auto refused = cli({"run", "talker", "-m", "go", "--label", "not a label"});
  EXPECT_EQ(refused.code, 3) << refused.err;
  EXPECT_NE(refused.err.find("placement.labels[0]"), std::string::npos) << refused.err;
  auto aborted = cli({"abort", id});
  EXPECT_EQ(aborted.code, 0) << aborted.err;
  EXPECT_EQ(show(id).at("status"), "aborted");
}

TEST_P(CliTest, DaemonsShowEachMembersLabelsAndWorkspaceRoots) {
  if (!connected()) GTEST_SKIP() << "a daemon lists itself";
  start_daemon({{"AGENTRY_LABELS", "gpu,region=eu"}, {"AGENTRY_WORKSPACE_ROOTS", "/srv/ml/:/srv/work"}});
  auto listed = cli({"daemons"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find("ROOTS"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("gpu,region=eu"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("/srv/ml:/srv/work"), std::string::npos) << listed.out;
}

TEST_P(CliTest, ConfigPrintsTheEffectiveSettingsAndABadOneStopsEveryCommand) {
  auto shown = cli({"config", "--json"}, {{"AGENTRY_HTTP_MAX_CONNECTIONS", "64"},
                                          {"AGENTRY_DAEMON_TOKEN", "s3cret"},
                                          {"AGENTRY_ALLOWED_HOSTS", "Agentry.LAN:4773, other"},
                                          {"XDG_STATE_HOME", "/xdg/state"}});
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_EQ(shown.out.find("s3cret"), std::string::npos) << "the token is never printed";
  std::map<std::string, json::object> by_name;
  const auto parsed = json::parse(shown.out);
  for (const auto& e : parsed.at("settings").as_array())
    by_name[std::string(e.at("name").as_string())] = e.as_object();
  EXPECT_EQ(by_name["AGENTRY_HTTP_MAX_CONNECTIONS"].at("value"), "64");
  EXPECT_EQ(by_name["AGENTRY_HTTP_MAX_CONNECTIONS"].at("from"), "environment");
  EXPECT_EQ(by_name["AGENTRY_MAX_CALL_DEPTH"].at("from"), "default");
  EXPECT_EQ(by_name["AGENTRY_DAEMON_TOKEN"].at("value"), "(set)");
  EXPECT_EQ(by_name["AGENTRY_ALLOWED_HOSTS"].at("value"), "agentry.lan,other") << "as the daemon compares them";
  EXPECT_EQ(by_name["AGENTRY_ALLOWED_ORIGINS"].at("from"), "default");
  EXPECT_EQ(by_name["XDG_STATE_HOME"].at("value"), "/xdg/state");
  EXPECT_EQ(by_name["XDG_STATE_HOME"].at("from"), "environment");
  EXPECT_EQ(by_name.count("HOME"), 1u);
  auto table = cli({"config"});
  EXPECT_EQ(table.code, 0);
  EXPECT_NE(table.out.find("AGENTRY_SSE_HEARTBEAT_MS"), std::string::npos) << table.out;

  auto refused = cli({"list"}, {{"AGENTRY_INTERRUPT_GRACE_MS", "soon"}});
  EXPECT_EQ(refused.code, 3);
  EXPECT_NE(refused.err.find("AGENTRY_INTERRUPT_GRACE_MS='soon'"), std::string::npos) << refused.err;
  auto bad_origin = cli({"config"}, {{"AGENTRY_ALLOWED_ORIGINS", "http://localhost:5173/app"}});
  EXPECT_EQ(bad_origin.code, 3);
  EXPECT_NE(bad_origin.err.find("AGENTRY_ALLOWED_ORIGINS='http://localhost:5173/app' is not valid: "
                                "comma-separated origins"),
            std::string::npos)
      << bad_origin.err;
}

// Embedded, a command keeps its state there; connected, it opens no database at all.
TEST_P(CliTest, WithoutAgentryHomeTheStateGoesUnderXdgStateHomeElseHome) {
  if (test::testing_on_postgresql()) GTEST_SKIP() << "where the SQLite file goes: the store here is a database";
  const auto xdg = dir_.make_dir("xdg-state");
  auto under_xdg = cli({"list", "--global"}, {{"AGENTRY_HOME", ""}, {"XDG_STATE_HOME", xdg.string()}});
  ASSERT_EQ(under_xdg.code, 0) << under_xdg.err;
  EXPECT_EQ(std::filesystem::exists(xdg / "agentry" / "agentry.db"), !connected());
  const auto user = dir_.make_dir("user");
  auto under_home = cli({"list", "--global"}, {{"AGENTRY_HOME", ""}, {"XDG_STATE_HOME", ""}, {"HOME", user.string()}});
  ASSERT_EQ(under_home.code, 0) << under_home.err;
  EXPECT_EQ(std::filesystem::exists(user / ".local" / "state" / "agentry" / "agentry.db"), !connected());
}

// `run --environment` runs the agent in a bubblewrap sandbox: its cwd writable, the rest
// of the host not (a directory beside the work tree stands for it), and `show` says so.
TEST_P(CliTest, RunEnvironmentRunsTheAgentInTheSandbox) {
  if (std::system("bwrap --ro-bind / / --dev /dev --proc /proc true >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "bubblewrap (bwrap) is missing or cannot create namespaces here";
  std::string outside_pattern = (std::filesystem::current_path() / "cli-environment-XXXXXX").string();
  ASSERT_NE(::mkdtemp(outside_pattern.data()), nullptr);
  const std::filesystem::path outside(outside_pattern);
  dir_.write_file("config/environments/confined.yaml", "schemaVersion: 1\nkind: bubblewrap\n");
  const std::string script = "echo in > inside.txt; echo out > '" + outside.string() + "/escape.txt' || true";
  write_agent("boxed", "subprocess", "{command: [sh, -c, " + json::serialize(json::value(script)) + "]}",
              "unlockedFields: [environment]\n");
  auto r = cli({"run", "boxed", "-m", "go", "--environment", "confined", "--json"});
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_TRUE(std::filesystem::exists(work_ / "inside.txt"));
  EXPECT_FALSE(std::filesystem::exists(outside / "escape.txt"));
  std::filesystem::remove_all(outside);
  const auto id = std::string(json::parse(r.out).at("run").at("runId").as_string());
  EXPECT_EQ(json::serialize(show(id).at("environment")),
            json::serialize(json::value{{"name", "confined"}, {"kind", "bubblewrap"}, {"network", "none"}}));
  auto listed = cli({"definitions", "environments"});
  EXPECT_EQ(listed.code, 0) << listed.err;
  EXPECT_TRUE(contains(listed.out, "confined")) << listed.out;
  auto missing = cli({"run", "boxed", "-m", "go", "--environment", "nowhere"});
  EXPECT_EQ(missing.code, 3) << missing.err;
}

// `init --run-id`: the same run, its assignment read again as edited since.
TEST_P(CliTest, InitRunIdReinitializesTheRunFromItsEditedAssignment) {
  auto init = cli({"init", "worker", "-a", "feature", "--var", "feature=search"});
  ASSERT_EQ(init.code, 0) << init.err;
  const std::string id = init.out.substr(0, init.out.find('\n'));
  dir_.write_file("config/assignments/feature/assignment.md", R"(---
schemaVersion: 1
message: "Ship {{feature}} today."
vars:
  feature:
    type: string
    required: true
tasks:
  - id: plan
    title: Plan {{feature}}
  - id: docs
    title: Document {{feature}}
---
)");
  auto again = cli({"init", "--run-id", id, "--var", "feature=export"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out, id + "\n");
  auto run = api_run(id);
  EXPECT_EQ(run.at("message"), "Ship export today.");
  ASSERT_EQ(run.at("tasks").as_array().size(), 2u);
  EXPECT_EQ(run.at("tasks").at(1).at("title"), "Document export");
  EXPECT_EQ(all_runs().size(), 1u);
  auto types = audit_types(id);
  EXPECT_EQ(std::count(types.begin(), types.end(), "run.reinitialized"), 1);

  ASSERT_EQ(cli({"ready", id}).code, 0);
  auto refused = cli({"init", "--run-id", id, "--var", "feature=x"});
  EXPECT_NE(refused.code, 0);
  EXPECT_TRUE(contains(refused.err, "this run is ready")) << refused.err;
  EXPECT_NE(cli({"init"}).code, 0) << "an agent, or --run-id";
}

INSTANTIATE_TEST_SUITE_P(Modes, CliTest, ::testing::Values(CliMode::embedded, CliMode::connected), mode_name);

}  // namespace
}  // namespace agentry::integration
