// `agentry import agent-runner <state dir>` on a state directory the test writes
// (agent_runner_state.hpp): two repo buckets, runs in several statuses (one that was
// running), tasks, attempts with stderr, attachments, schedules, dependencies, queued
// messages, hooks and a manifest of an older schemaVersion. Imported with --dry-run, then
// for real, then again (everything skipped), and read back through the CLI, embedded and
// from a daemon. On PostgreSQL too (AGENTRY_TEST_STORE=postgresql).
#include "support/agent_runner_state.hpp"
#include "cli_fixture.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <random>

namespace agentry::integration {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;
using test::AgentRunnerState;
using test::agent_runner_event;
using test::agent_runner_manifest;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::string out(n, '\0');
  for (auto& c : out) c = static_cast<char>(gen() & 0xff);
  return out;
}

json::object attempt(int number, int session, int in_session, const json::value& exit_code, const std::string& transcript,
                     const json::value& signal = nullptr) {
  char log[32];
  std::snprintf(log, sizeof log, "attempts/%02d.json", number);
  return json::object{{"attemptNumber", number},   {"sessionIndex", session},
                      {"attemptIndexInSession", in_session},
                      {"startedAt", "2026-05-01T10:0" + std::to_string(number) + ":00.000Z"},
                      {"endedAt", "2026-05-01T10:0" + std::to_string(number) + ":30.000Z"},
                      {"prompt", "Prompt of attempt " + std::to_string(number)},
                      {"sessionIdAtStart", nullptr}, {"sessionIdCaptured", "thread-1"},
                      {"exitCode", exit_code},     {"signal", signal},
                      {"timedOut", false},         {"transcript", transcript},
                      {"logPath", log},            {"invalidStatuses", json::array{}},
                      {"provenance", {{"kind", "task_runner"}}}};
}

json::object session(int index, const std::string& status, const json::value& ended_at) {
  return json::object{{"sessionIndex", index}, {"startedAt", "2026-05-01T10:01:00.000Z"}, {"endedAt", ended_at},
                      {"status", status}, {"exitCode", nullptr}, {"message", "Do the work."}, {"brief", "Brief."},
                      {"firstAttemptNumber", 1}, {"lastAttemptNumber", 2}, {"maxAttemptsPerSession", 2},
                      {"backendSessionIdAtStart", nullptr}, {"backendSessionIdAtEnd", "thread-1"},
                      {"resumeSource", nullptr}, {"provenance", {{"kind", "task_runner"}}}};
}

json::object task(const std::string& id, const std::string& title, const std::string& status) {
  return json::object{{"id", id}, {"title", title}, {"body", "Body of " + title}, {"status", status}, {"notes", ""}};
}

class ImportAgentRunnerTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (HasFatalFailure()) return;
    state_ = std::make_unique<AgentRunnerState>(dir_.make_dir("agent-runner-state"));
    write_state();
  }

  void write_state() {
    const auto& s = *state_;
    const std::string cwd = work_.string();

    // alpha/ar-done-1: a codex run that succeeded on its second attempt, with tasks in
    // key order (not alphabetical), an attachment, a hook, and files not carried.
    auto done = agent_runner_manifest("ar-done-1", "success", cwd);
    done["backend"] = "codex";
    done["model"] = "gpt-5";
    done["effort"] = "high";
    done["backendConfig"] = json::object{{"codex", {{"sandbox", "workspace-write"}}}};
    done["resolvedBackendArgs"] = json::array{"--search"};
    done["name"] = "Done run";
    done["note"] = "kept for the record";
    done["pinned"] = true;
    done["endedAt"] = "2026-05-01T10:10:00.000Z";
    done["backendSessionId"] = "thread-1";
    done["backendSessionSync"] = json::object{{"backend", "codex"}, {"backendSessionId", "thread-1"}};
    done["finalTasks"] = json::object{{"zeta", task("zeta", "Zeta first", "completed")},
                                      {"alpha", task("alpha", "Alpha second", "completed")}};
    done["resetSeed"].as_object()["finalTasks"] = json::object{{"zeta", task("zeta", "Zeta first", "pending")},
                                                               {"alpha", task("alpha", "Alpha second", "pending")}};
    done["sessions"] = json::array{session(0, "success", "2026-05-01T10:10:00.000Z")};
    done["attemptRecords"] = json::array{attempt(1, 0, 0, 1, "first try"), attempt(2, 0, 1, 0, "All done.")};
    // Hooks agentry cannot run: a built-in without its options, and a module whose file
    // is not on this machine.
    done["resolvedHooks"] = json::array{json::object{{"hookId", "git-worktree"}, {"phase", "prepare"},
                                                     {"source", {{"builtin", "git-worktree"}}}, {"resolvedPath", nullptr},
                                                     {"taskScopeId", nullptr}, {"when", nullptr}, {"config", nullptr}},
                                        json::object{{"hookId", "afterExit-0"}, {"phase", "afterExit"},
                                                     {"source", {{"name", "gone"}}}, {"resolvedPath", "/nonexistent/gone/hook.mjs"},
                                                     {"taskScopeId", nullptr}, {"when", nullptr}, {"config", nullptr}}};
    attachment_bytes_ = random_bytes(150 * 1024 + 3, 7);
    done["attachments"] = json::array{s.write_attachment("alpha", "ar-done-1", "att-one", "notes.bin", attachment_bytes_)};
    s.write_manifest("alpha", done);
    s.write_attempt_log("alpha", "ar-done-1", 1, 0, "boom on stderr");
    s.write_attempt_log("alpha", "ar-done-1", 2, 0, "");
    s.write_file("alpha", "ar-done-1", "attempts/01.stdout.log", "raw stdout\n");
    s.write_file("alpha", "ar-done-1", "agent-seed.md", "---\nbackend: codex\n---\nYou are the worker.\n");
    // Out of cursor order on purpose, and one record of another run (left out).
    s.write_events("alpha", "ar-done-1",
                   {agent_runner_event("ar-done-1", 2, "run.started", "system", {{"backend", "codex"}}),
                    agent_runner_event("ar-done-1", 1, "run.created", "cli", {{"agentName", "worker"}}),
                    agent_runner_event("someone-else", 1, "run.created", "cli"),
                    agent_runner_event("ar-done-1", 3, "task.updated", "task_command",
                                       {{"taskId", "zeta"}, {"toStatus", "completed"}}),
                    agent_runner_event("ar-done-1", 4, "run.finished", "system", {{"status", "success"}})});

    // alpha/ar-live-2: running when agent-runner stopped; a child of ar-done-1 with
    // queued messages and a pending parent-completion notification.
    auto live = agent_runner_manifest("ar-live-2", "running", cwd);
    live["parentRunId"] = "ar-done-1";
    live["runGroupId"] = "grp-alpha";
    live["sessions"] = json::array{session(0, "running", nullptr)};
    live["attemptRecords"] = json::array{attempt(1, 0, 0, 0, "partial answer")};
    live["queuedResumeMessages"] = json::array{
        json::object{{"id", "q-1"}, {"text", "Also update the docs."}, {"createdAt", "2026-05-01T10:20:00.000Z"}, {"source", nullptr}},
        json::object{{"id", "q-2"}, {"text", "Child finished."}, {"createdAt", "2026-05-01T10:21:00.000Z"},
                     {"source", {{"kind", "parent_completion_notification"}, {"childRunId", "ar-x"}, {"notificationId", "n-9"}}}}};
    live["parentCompletionNotifications"] = json::array{json::object{
        {"id", "n-1"}, {"parentRunId", "ar-done-1"}, {"sessionIndex", 0}, {"source", "detached_invocation"},
        {"status", "pending"}, {"createdAt", "2026-05-01T10:01:00.000Z"}, {"deliveredAt", nullptr},
        {"terminalStatus", nullptr}, {"deliveryReason", nullptr}, {"failureReason", nullptr}}};
    s.write_manifest("alpha", live);

    // beta/ar-sched-3: ready, on a cron schedule, waiting on a run and a group.
    auto sched = agent_runner_manifest("ar-sched-3", "ready", cwd);
    sched["repo"] = "beta";
    sched["schedule"] = json::object{
        {"enabled", true}, {"runAt", "2030-01-01T09:00:00.000Z"},
        {"recurrence", {{"schedule", {{"type", "cron"}, {"expression", "0 9 * * *"}, {"timezone", "Europe/Paris"}}},
                        {"mode", "reuse"}, {"continueOnFailure", true}}}};
    sched["dependencies"] = json::array{json::object{{"type", "run"}, {"runId", "ar-done-1"}},
                                        json::object{{"type", "group"}, {"groupId", "grp-alpha"}}};
    s.write_manifest("beta", sched);

    // beta/ar-init-4: initialized, a one-time schedule already overdue, one task.
    auto init = agent_runner_manifest("ar-init-4", "initialized", cwd);
    init["repo"] = "beta";
    init["schedule"] = json::object{{"enabled", true}, {"runAt", "2026-01-01T00:00:00.000Z"}, {"recurrence", nullptr}};
    init["finalTasks"] = json::object{{"t1", task("t1", "Only task", "pending")}};
    // Hooks agentry runs: a module whose file is here, their command and
    // require-children-success forms; with the state and audits they left.
    const auto module = dir_.write_file("hooks/check/hook.mjs", "export default { name: 'check' };\n");
    init["resolvedHooks"] = json::array{
        json::object{{"hookId", "prepare-0"}, {"phase", "prepare"}, {"source", {{"name", "check"}}},
                     {"resolvedPath", module.string()}, {"taskScopeId", nullptr}, {"when", nullptr}, {"config", nullptr}},
        json::object{{"hookId", "beforeAttempt-0"}, {"phase", "beforeAttempt"}, {"source", {{"builtin", "command"}}},
                     {"resolvedPath", nullptr}, {"taskScopeId", nullptr},
                     {"when", {{"sessionIndex", json::array{0}}, {"attemptIndexInSession", 0}}},
                     {"config", {{"mode", "status"}, {"command", "true"}}}},
        json::object{{"hookId", "t1-taskTransition-0"}, {"phase", "taskTransition"},
                     {"source", {{"builtin", "require-children-success"}}}, {"resolvedPath", nullptr},
                     {"taskScopeId", "t1"}, {"when", {{"taskIds", json::array{"t1"}}, {"toStatus", json::array{"completed"}}}},
                     {"config", {{"requireAny", true}}}}};
    init["hookState"] = json::object{{"counter", 2}};
    init["hookAudits"] = json::array{
        json::object{{"phase", "prepare"}, {"hookId", "prepare-0"}, {"startedAt", "2026-05-01T09:00:00.000Z"},
                     {"endedAt", "2026-05-01T09:00:00.250Z"}, {"outcome", "continue"}, {"sessionIndex", nullptr},
                     {"attemptNumber", nullptr}, {"taskId", nullptr}, {"summary", nullptr}},
        json::object{{"phase", "taskTransition"}, {"hookId", "t1-taskTransition-0"},
                     {"startedAt", "2026-05-01T09:01:00.000Z"}, {"endedAt", "2026-05-01T09:01:00.010Z"},
                     {"outcome", "rejected"}, {"sessionIndex", nullptr}, {"attemptNumber", nullptr}, {"taskId", "t1"},
                     {"summary", "no child run yet"}}};
    s.write_manifest("beta", init);

    // beta/ar-aborted-6: aborted by a signal, then archived.
    auto aborted = agent_runner_manifest("ar-aborted-6", "aborted", cwd);
    aborted["backend"] = "claude";
    aborted["endedAt"] = "2026-05-01T10:02:00.000Z";
    aborted["archivedAt"] = "2026-05-02T08:00:00.000Z";
    aborted["sessions"] = json::array{session(0, "aborted", "2026-05-01T10:02:00.000Z")};
    aborted["attemptRecords"] = json::array{attempt(1, 0, 0, nullptr, "", "SIGTERM")};
    s.write_manifest("beta", aborted);

    // beta/ar-old-5: an older generation agent-runner itself no longer reads.
    s.write_manifest("beta", json::object{{"schemaVersion", 24}, {"runId", "ar-old-5"}, {"status", "success"}});
  }

  CliResult import(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"import", "agent-runner", state_->root().string(), "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return cli(args);
  }

  std::unique_ptr<AgentRunnerState> state_;
  std::string attachment_bytes_;
};

std::vector<std::string> ids_of(const json::array& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.emplace_back(e.at("runId").as_string());
  return out;
}

const json::object& entry_of(const json::array& entries, const std::string& id) {
  for (const auto& e : entries)
    if (e.at("runId").as_string() == id) return e.as_object();
  throw std::runtime_error("no entry for " + id);
}

std::vector<std::string> kinds_of(const json::array& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.emplace_back(e.at("kind").as_string());
  return out;
}

std::string text(const json::value& v, std::string_view key) { return std::string(v.at(key).as_string()); }

json::array hooks_left_out() {
  return {"prepare:git-worktree (its git-worktree options are not agent-runner's form)",
          "afterExit:afterExit-0 (its module /nonexistent/gone/hook.mjs does not exist here)"};
}

const std::vector<std::string> imported_ids = {"ar-done-1", "ar-live-2", "ar-aborted-6", "ar-init-4", "ar-sched-3"};

TEST_P(ImportAgentRunnerTest, DryRunWritesNothingThenImportsOnceAndSkipsAfter) {
  auto dry = import({"--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.out << dry.err;
  const auto planned = json::parse(dry.out).as_object();
  EXPECT_EQ(planned.at("dryRun"), true);
  EXPECT_EQ(ids_of(planned.at("imported").as_array()), imported_ids);
  EXPECT_TRUE(all_runs().empty()) << "a dry run wrote runs";

  auto first = import();
  ASSERT_EQ(first.code, 0) << first.out << first.err;
  const auto report = json::parse(first.out).as_object();
  EXPECT_EQ(report.at("dryRun"), false);
  EXPECT_EQ(ids_of(report.at("imported").as_array()), imported_ids);
  EXPECT_TRUE(report.at("problems").as_array().empty()) << first.out;
  // The older manifest is reported and skipped, not refused.
  const auto& old = entry_of(report.at("skipped").as_array(), "ar-old-5");
  EXPECT_TRUE(contains(text(old, "reason"), "schemaVersion 24")) << old;
  const auto& done = entry_of(report.at("imported").as_array(), "ar-done-1");
  EXPECT_EQ(done.at("repo"), "alpha");
  EXPECT_EQ(done.at("notCarried"), (json::array{"backendSessionSync", "attempts/*.stdout.log", "agent-seed.md"}));
  EXPECT_EQ(done.at("hooksNotImported"), hooks_left_out());
  const auto& live = entry_of(report.at("imported").as_array(), "ar-live-2");
  EXPECT_EQ(live.at("status"), "error");
  EXPECT_EQ(live.at("statusThere"), "running");
  EXPECT_EQ(entry_of(report.at("imported").as_array(), "ar-sched-3").at("repo"), "beta");
  EXPECT_EQ(all_runs().size(), imported_ids.size());

  // Again: every run is skipped, nothing is written twice.
  auto second = import();
  ASSERT_EQ(second.code, 0) << second.out << second.err;
  const auto again = json::parse(second.out).as_object();
  EXPECT_TRUE(again.at("imported").as_array().empty()) << second.out;
  EXPECT_TRUE(again.at("problems").as_array().empty()) << second.out;
  EXPECT_EQ(again.at("skipped").as_array().size(), imported_ids.size() + 1);
  for (const auto& id : imported_ids)
    EXPECT_TRUE(contains(text(entry_of(again.at("skipped").as_array(), id), "reason"), "already imported from")) << id;
  EXPECT_EQ(audit_types("ar-done-1").size(), 5u) << "audit written twice";
  EXPECT_EQ(all_runs().size(), imported_ids.size());

  // The human summary says the same.
  auto human = cli({"import", "agent-runner", state_->root().string()});
  ASSERT_EQ(human.code, 0) << human.err;
  EXPECT_TRUE(contains(human.out, "imported 0 runs from " + state_->root().string() + "; skipped 6; refused 0")) << human.out;
  EXPECT_TRUE(contains(human.out, "skipped ar-done-1: already imported from")) << human.out;
}

TEST_P(ImportAgentRunnerTest, ImportedRunsReadBackThroughTheCli) {
  auto first = import();
  ASSERT_EQ(first.code, 0) << first.out << first.err;

  // The run row and its frozen inputs.
  const auto done = show("ar-done-1");
  EXPECT_EQ(done.at("status"), "success");
  EXPECT_EQ(done.at("name"), "Done run");
  EXPECT_EQ(done.at("note"), "kept for the record");
  EXPECT_EQ(done.at("pinned"), true);
  EXPECT_EQ(done.at("backend"), "codex");
  EXPECT_EQ(done.at("model"), "gpt-5");
  EXPECT_EQ(done.at("backendSessionId"), "thread-1");
  EXPECT_EQ(done.at("createdAt"), "2026-05-01T10:00:00.000Z");
  EXPECT_EQ(done.at("finishedAt"), "2026-05-01T10:10:00.000Z");
  EXPECT_EQ(done.at("frozen").at("backendConfig"), (json::object{{"sandbox", "workspace-write"}}));
  EXPECT_EQ(done.at("frozen").at("extraArgs"), json::array{"--search"});
  EXPECT_EQ(done.at("frozen").at("effort"), "high");
  // Tasks in the manifest's key order, marked imported.
  const auto& tasks = done.at("tasks").as_array();
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].at("id"), "zeta");
  EXPECT_EQ(tasks[1].at("id"), "alpha");
  EXPECT_EQ(tasks[0].at("source"), "imported");
  EXPECT_EQ(tasks[1].at("status"), "completed");
  const auto& attempts = done.at("sessions").at(0).at("attempts").as_array();
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0].at("outcome"), "error");
  EXPECT_EQ(attempts[1].at("outcome"), "success");
  auto status = cli({"status", "ar-done-1"});
  EXPECT_EQ(status.code, 0) << status.err;
  EXPECT_TRUE(contains(status.out, "ar-done-1 success · tasks 2/2 completed · 2 attempts, 1 session")) << status.out;

  // The timeline rebuilt from the attempt records and the attempt logs' stderr.
  auto logs = cli({"logs", "ar-done-1", "--json"});
  ASSERT_EQ(logs.code, 0) << logs.err;
  const auto timeline = json::parse(logs.out).at("events").as_array();
  EXPECT_EQ(kinds_of(timeline),
            (std::vector<std::string>{"attempt.started", "message.completed", "notice", "attempt.finished",
                                      "attempt.started", "message.completed", "attempt.finished", "run.finished"}));
  EXPECT_EQ(timeline[0].at("payload").at("prompt"), "Prompt of attempt 1");
  EXPECT_EQ(timeline[1].at("payload").at("text"), "first try");
  EXPECT_EQ(timeline[2].at("payload").at("message"), "boom on stderr");
  EXPECT_EQ(timeline[3].at("payload").at("exitCode"), 1);
  EXPECT_EQ(timeline[5].at("payload").at("text"), "All done.");
  EXPECT_EQ(timeline[7].at("payload").at("status"), "success");
  for (std::size_t i = 0; i < timeline.size(); ++i) EXPECT_EQ(timeline[i].at("cursor"), static_cast<std::int64_t>(i + 1));

  // Their audit in cursor order (the file was not), actors from their sources, then ours.
  auto audit = cli({"audit", "ar-done-1", "--json"});
  ASSERT_EQ(audit.code, 0) << audit.err;
  const auto records = json::parse(audit.out).at("events").as_array();
  ASSERT_EQ(records.size(), 5u) << audit.out;
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"run.created", "cli"}, {"run.started", "engine"}, {"task.updated", "agent"}, {"run.finished", "engine"},
      {"run.imported", "cli"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(records[i].at("type"), json::value(expected[i].first)) << i;
    EXPECT_EQ(records[i].at("actor"), json::value(expected[i].second)) << i;
  }
  EXPECT_EQ(records[2].at("data").at("taskId"), "zeta");
  EXPECT_EQ(records[2].at("data").at("importedFrom"), "agent-runner");
  const auto& provenance = records[4].at("data").at("importedFrom");
  EXPECT_EQ(provenance.at("system"), "agent-runner");
  EXPECT_EQ(provenance.at("manifest"), json::value((state_->run_dir("alpha", "ar-done-1") / "run.json").string()));
  EXPECT_EQ(records[4].at("data").at("hooksNotImported"), hooks_left_out());

  // The attachment's bytes, from our blob store.
  auto got = cli({"attachment", "get", "ar-done-1", "att-one", "-o", "got.bin"});
  ASSERT_EQ(got.code, 0) << got.err;
  EXPECT_TRUE(read_bytes(work_ / "got.bin") == attachment_bytes_);

  // A run that was running: an error now, its session closed, its queue and its
  // promise to its parent kept.
  const auto live = show("ar-live-2");
  EXPECT_EQ(live.at("status"), "error");
  EXPECT_EQ(live.at("statusReason"), "imported from agent-runner while running");
  EXPECT_EQ(live.at("parentRunId"), "ar-done-1");
  EXPECT_EQ(live.at("runGroupId"), "grp-alpha");
  EXPECT_EQ(live.at("sessions").at(0).at("status"), "error");
  EXPECT_EQ(live.at("sessions").at(0).at("endedBy"), "restart");
  const auto& queued = live.at("queuedResumeMessages").as_array();
  ASSERT_EQ(queued.size(), 2u);
  EXPECT_EQ(queued[0].at("text"), "Also update the docs.");
  EXPECT_EQ(queued[1].at("source").at("childRunId"), "ar-x");
  EXPECT_EQ(live.at("parentNotification").at("state"), "pending");
  EXPECT_EQ(cli({"status", "ar-live-2"}).code, 4);
  EXPECT_EQ(kinds_of(json::parse(cli({"logs", "ar-live-2", "--json"}).out).at("events").as_array()),
            (std::vector<std::string>{"attempt.started", "message.completed", "attempt.finished", "run.finished"}));

  // Schedules and dependencies.
  const auto sched = show("ar-sched-3");
  const auto& schedule = sched.at("schedule");
  EXPECT_EQ(schedule.at("kind"), "recurring");
  EXPECT_EQ(schedule.at("cron"), "0 9 * * *");
  EXPECT_EQ(schedule.at("timezone"), "Europe/Paris");
  EXPECT_EQ(schedule.at("continueOnFailure"), true);
  EXPECT_EQ(schedule.at("nextAt"), "2030-01-01T09:00:00.000Z");
  const auto& deps = sched.at("dependencies").as_array();
  ASSERT_EQ(deps.size(), 2u);
  EXPECT_EQ(sched.at("dependencyState").at("total"), 2);
  EXPECT_EQ(sched.at("dependencyState").at("satisfied"), 1);  // ar-done-1 succeeded; grp-alpha has an error
  const auto init = show("ar-init-4");
  EXPECT_EQ(init.at("status"), "initialized");
  EXPECT_EQ(init.at("schedule").at("kind"), "once");
  EXPECT_EQ(init.at("schedule").at("nextAt"), "2026-01-01T00:00:00.000Z");

  // Archived and aborted by a signal.
  const auto aborted = show("ar-aborted-6");
  EXPECT_EQ(aborted.at("archived"), true);
  EXPECT_EQ(aborted.at("archivedAt"), "2026-05-02T08:00:00.000Z");
  EXPECT_EQ(aborted.at("sessions").at(0).at("attempts").at(0).at("outcome"), "interrupted");

  // Reset goes back to their reset seed (our initial snapshot): its tasks, pending.
  auto reset = cli({"reset", "ar-done-1"});
  ASSERT_EQ(reset.code, 0) << reset.out << reset.err;
  const auto fresh = show("ar-done-1");
  EXPECT_EQ(fresh.at("status"), "initialized");
  ASSERT_EQ(fresh.at("tasks").as_array().size(), 2u);
  EXPECT_EQ(fresh.at("tasks").at(0).at("id"), "zeta");
  EXPECT_EQ(fresh.at("tasks").at(0).at("status"), "pending");
}

TEST_P(ImportAgentRunnerTest, HooksComeOverOrTheRunRefusesToStartAgain) {
  ASSERT_EQ(import().code, 0);

  // Carried: frozen as agentry hooks, with the state and audits they left.
  const auto init = show("ar-init-4");
  const auto& hooks = init.at("resolvedHooks").as_array();
  ASSERT_EQ(hooks.size(), 3u) << init;
  EXPECT_EQ(hooks[0].at("id"), "prepare-0");
  EXPECT_EQ(hooks[0].at("moduleSource"), "name:check");
  EXPECT_EQ(hooks[1].at("builtin"), "command");
  EXPECT_EQ(hooks[1].at("when").at("sessionIndex"), json::array{"0"});
  EXPECT_EQ(hooks[2].at("origin"), "task:t1");
  EXPECT_EQ(hooks[2].at("when").at("taskId"), json::array{"t1"});
  EXPECT_EQ(init.at("hookData"), (json::object{{"counter", 2}}));
  const auto& audits = init.at("hookAudits").as_array();
  ASSERT_EQ(audits.size(), 2u) << init;
  EXPECT_EQ(audits[0].at("outcome"), "ok");
  EXPECT_EQ(audits[0].at("durationMs"), 250);
  EXPECT_EQ(audits[1].at("outcome"), "refused");
  EXPECT_EQ(audits[1].at("message"), "no child run yet");
  EXPECT_FALSE(init.contains("hooksNotImported"));
  EXPECT_EQ(init.at("capabilities").at("canReady"), true) << init;

  // Left out: named on the run, which will not start without them.
  const auto done = show("ar-done-1");
  EXPECT_EQ(done.at("hooksNotImported"), hooks_left_out());
  EXPECT_EQ(done.at("capabilities").at("canResume"), false) << done;
  auto resumed = cli({"resume", "ar-done-1", "-m", "carry on"});
  EXPECT_NE(resumed.code, 0);
  EXPECT_TRUE(contains(resumed.err, "imported without hooks it was defined with")) << resumed.err;
  EXPECT_TRUE(contains(resumed.err, "afterExit:afterExit-0")) << resumed.err;
}

TEST_P(ImportAgentRunnerTest, RefusesBadRunsAndCollisionsAndImportsTheRest) {
  ASSERT_EQ(import().code, 0);
  const auto& s = *state_;
  const std::string cwd = work_.string();
  // Changed since it was imported: refused, never overwritten.
  auto init = agent_runner_manifest("ar-init-4", "initialized", cwd);
  init["updatedAt"] = "2026-06-01T00:00:00.000Z";
  s.write_manifest("beta", init);
  // A field of the wrong type.
  auto bad = agent_runner_manifest("ar-bad-7", "success", cwd);
  bad["sessions"] = json::array{session(0, "success", "2026-05-01T10:10:00.000Z")};
  bad["sessions"].as_array()[0].as_object()["startedAt"] = 5;
  s.write_manifest("beta", bad);
  // An audit line that is not a record.
  s.write_manifest("beta", agent_runner_manifest("ar-events-8", "ready", cwd));
  s.write_events("beta", "ar-events-8", {agent_runner_event("ar-events-8", 1, "run.created", "cli"),
                                         agent_runner_event("ar-events-8", 2, "run.ready", "robot")});
  // An attachment whose bytes are not the ones recorded.
  auto att = agent_runner_manifest("ar-att-9", "success", cwd);
  auto entry = s.write_attachment("beta", "ar-att-9", "att-x", "x.txt", "original");
  s.write_file("beta", "ar-att-9", "attachments/att-x/x.txt", "tampered");
  att["attachments"] = json::array{entry};
  s.write_manifest("beta", att);
  // One id in two buckets: the first (alpha) was imported; this copy is left out.
  s.write_manifest("zulu", agent_runner_manifest("ar-done-1", "success", cwd));
  // A good new run beside them is still imported.
  s.write_manifest("beta", agent_runner_manifest("ar-new-10", "success", cwd));

  auto r = import();
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  const auto report = json::parse(r.out).as_object();
  EXPECT_EQ(ids_of(report.at("imported").as_array()), std::vector<std::string>{"ar-new-10"});
  const auto& problems = report.at("problems").as_array();
  EXPECT_EQ(entry_of(problems, "ar-init-4").at("field"), "updatedAt");
  EXPECT_TRUE(contains(text(entry_of(problems, "ar-init-4"), "reason"), "never overwritten")) << r.out;
  EXPECT_EQ(entry_of(problems, "ar-bad-7").at("field"), "sessions[0].startedAt");
  EXPECT_TRUE(contains(text(entry_of(problems, "ar-bad-7"), "reason"), "ar-bad-7/run.json: sessions[0].startedAt must be a string"))
      << r.out;
  EXPECT_EQ(entry_of(problems, "ar-events-8").at("field"), "source");
  EXPECT_TRUE(contains(text(entry_of(problems, "ar-events-8"), "reason"), "run-events.jsonl line 2")) << r.out;
  EXPECT_EQ(entry_of(problems, "ar-att-9").at("field"), "attachments[0].sha256");
  EXPECT_TRUE(contains(text(entry_of(problems, "ar-done-1"), "reason"), "is also under " + state_->run_dir("alpha", "ar-done-1").string()))
      << r.out;
  for (const char* id : {"ar-bad-7", "ar-events-8", "ar-att-9"}) EXPECT_EQ(cli({"show", id}).code, 3) << id;
  EXPECT_EQ(show("ar-init-4").at("updatedAt"), "2026-05-01T10:30:00.000Z");

  // The same run id from another state directory: a collision, reported, not written.
  AgentRunnerState other(dir_.make_dir("other-state"));
  auto twin = agent_runner_manifest("ar-done-1", "error", cwd);
  other.write_manifest("gamma", twin);
  auto collided = cli({"import", "agent-runner", other.root().string(), "--json"});
  EXPECT_EQ(collided.code, 3) << collided.out << collided.err;
  const auto collision_report = json::parse(collided.out);
  const auto& problem = entry_of(collision_report.at("problems").as_array(), "ar-done-1");
  EXPECT_EQ(problem.at("field"), "runId");
  EXPECT_TRUE(contains(text(problem, "reason"), "was not imported from")) << collided.out;
  EXPECT_EQ(show("ar-done-1").at("status"), "success");

  // A directory that is no state directory.
  auto nowhere = cli({"import", "agent-runner", work_.string()});
  EXPECT_EQ(nowhere.code, 3);
  EXPECT_TRUE(contains(nowhere.err, "holds no runs/ directory")) << nowhere.err;
}

TEST_P(ImportAgentRunnerTest, AStorageFailureExitsFourAndWritesNoRowOfThatRun) {
  // The blob directory cannot be made (a file stands where it would be): the run with an
  // attachment fails before its transaction; the others are imported.
  dir_.write_file("not-a-dir", "x");
  auto r = cli({"import", "agent-runner", state_->root().string(), "--json"},
               {{"AGENTRY_BLOB_DIR", (dir_.path() / "not-a-dir" / "blobs").string()}});
  EXPECT_EQ(r.code, 4) << r.out << r.err;
  const auto report = json::parse(r.out).as_object();
  EXPECT_TRUE(contains(text(entry_of(report.at("problems").as_array(), "ar-done-1"), "reason"), "cannot create")) << r.out;
  EXPECT_EQ(report.at("imported").as_array().size(), imported_ids.size() - 1);
  EXPECT_EQ(cli({"show", "ar-done-1"}).code, 3);
  // Once storage works again, the run comes in; the others are skipped.
  auto again = import();
  EXPECT_EQ(again.code, 0) << again.out << again.err;
  EXPECT_EQ(ids_of(json::parse(again.out).at("imported").as_array()), std::vector<std::string>{"ar-done-1"});
}

TEST_P(ImportAgentRunnerTest, RefusedWhileADaemonServesTheStoreAndServedAfter) {
  ASSERT_EQ(import().code, 0);
  start_daemon();
  // Connected: refused before anything is read.
  auto connected_import = cli({"import", "agent-runner", state_->root().string()}, {{"AGENTRY_CONNECT", ws_url_}});
  EXPECT_EQ(connected_import.code, 3);
  EXPECT_TRUE(contains(connected_import.err, "without --connect")) << connected_import.err;
  // Embedded beside a daemon: refused, the daemon named.
  auto beside = import();
  EXPECT_EQ(beside.code, 3) << beside.out << beside.err;
  EXPECT_TRUE(contains(beside.err, "serves")) << beside.err;

  // The daemon serves the imported runs through its API.
  auto run = daemon_->client().get("/api/runs/ar-done-1");
  ASSERT_EQ(run.status, 200) << run.body;
  EXPECT_EQ(run.json().at("run").at("status"), "success");
  auto timeline = daemon_->client().get("/api/runs/ar-done-1/timeline");
  ASSERT_EQ(timeline.status, 200) << timeline.body;
  EXPECT_EQ(timeline.json().at("events").as_array().size(), 8u) << timeline.body;
  auto from_daemon = cli({"logs", "ar-live-2"}, {{"AGENTRY_CONNECT", ws_url_}});
  EXPECT_EQ(from_daemon.code, 0) << from_daemon.err;
  EXPECT_TRUE(contains(from_daemon.out, "partial answer")) << from_daemon.out;
  EXPECT_TRUE(contains(from_daemon.out, "run error: imported from agent-runner while running")) << from_daemon.out;
  auto got = cli({"attachment", "get", "ar-done-1", "att-one", "-o", "served.bin"}, {{"AGENTRY_CONNECT", ws_url_}});
  ASSERT_EQ(got.code, 0) << got.err;
  EXPECT_TRUE(read_bytes(work_ / "served.bin") == attachment_bytes_);
  // The overdue one-time schedule follows the daemon's startup policy: recorded as
  // missed, and spent.
  wait_for_run("ar-init-4", [](const json::object& r) { return r.at("schedule").is_null(); });
  const auto types = audit_types("ar-init-4");
  EXPECT_NE(std::find(types.begin(), types.end(), "schedule.missed"), types.end());
}

INSTANTIATE_TEST_SUITE_P(Mode, ImportAgentRunnerTest, ::testing::Values(CliMode::embedded), mode_name);

}  // namespace
}  // namespace agentry::integration
