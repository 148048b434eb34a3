// agent-runner's command set for agents (docs/agent-runner.md "The agent-runner
// command"), run by the `agent-runner` link the build puts beside agentry, in both modes:
// its grammar, its JSON checked against agent-runner's schemas, its exit codes, and an
// agent that reports its tasks with it from inside its run.
#include "cli_fixture.hpp"

#include "unit/api/compat/ref_schema_checks.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <random>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;
using api::compat::testing::Problems;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string joined(const Problems& problems) {
  std::string out;
  for (const auto& p : problems) out += p + "\n";
  return out;
}

/// The link the build makes: `agent-runner` beside the agentry binary.
fs::path agent_runner_link() { return test::DaemonProcess::binary_path().parent_path() / "agent-runner"; }

class AgentRunnerCliTest : public CliTest {
 protected:
  /// `agent-runner <args>`, called by that name through the link.
  CliResult ar(const std::vector<std::string>& args, const test::EnvOverrides& extra = {}) {
    program_ = agent_runner_link();
    auto r = cli(args, extra);
    program_.clear();
    return r;
  }
  /// A run of `worker` (passive) on the `feature` assignment (tasks plan and build).
  std::string init_feature_run() {
    auto r = ar({"init", "--agent", "worker", "--assignment", "feature", "--var", "feature=login"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
};

TEST_P(AgentRunnerCliTest, TheLinkBesideAgentryIsTheCommandSet) {
  const fs::path link = agent_runner_link();
  ASSERT_TRUE(fs::is_symlink(link)) << link;
  EXPECT_EQ(fs::read_symlink(link), fs::path("agentry"));
  auto help = ar({"--help"});
  EXPECT_EQ(help.code, 0) << help.err;
  EXPECT_TRUE(contains(help.out, "run status <run>")) << help.out;
  EXPECT_TRUE(contains(help.out, "compat listener")) << help.out;
  // `agentry agent-runner ...` is the same command set.
  auto same = cli({"agent-runner", "--help"});
  EXPECT_EQ(same.code, 0);
  EXPECT_EQ(same.out, help.out);

  // Refusals: exit 3 with a message naming what is wrong.
  auto unknown = ar({"run", "status", "r1", "--verbose"});
  EXPECT_EQ(unknown.code, 3);
  EXPECT_TRUE(contains(unknown.err, "unknown option --verbose")) << unknown.err;
  auto elsewhere = ar({"run", "workspace", "r1"});
  EXPECT_EQ(elsewhere.code, 3);
  EXPECT_TRUE(contains(elsewhere.err, "agent-runner's own CLI")) << elsewhere.err;
  auto status = ar({"status"});
  EXPECT_EQ(status.code, 3);
  EXPECT_TRUE(contains(status.err, "compat listener")) << status.err;
  auto misplaced = ar({"task", "list", "r1", "--title", "x"});
  EXPECT_EQ(misplaced.code, 3);
  EXPECT_TRUE(contains(misplaced.err, "task list does not take --title")) << misplaced.err;
  EXPECT_EQ(ar({"run", "status"}).code, 3);
  EXPECT_EQ(ar({"run", "status", "a", "b"}).code, 3);
  EXPECT_EQ(ar({"run", "status", "no-such-run"}).code, 3);
}

TEST_P(AgentRunnerCliTest, RunStatusPrintsTheirRunDetailProjectedToFields) {
  const std::string id = init_feature_run();
  ASSERT_FALSE(id.empty());

  auto whole = ar({"run", "status", id, "--output-format", "json"});
  ASSERT_EQ(whole.code, 0) << whole.err;
  auto detail = json::parse(whole.out);
  EXPECT_EQ(joined(api::compat::testing::check_run_detail(detail)), "");
  EXPECT_EQ(detail.at("runId"), json::value(id));

  auto projected = ar({"run", "status", id, "--output-format", "json", "--field", "status", "--field", "tasks"});
  ASSERT_EQ(projected.code, 0) << projected.err;
  auto fields = json::parse(projected.out).as_object();
  EXPECT_EQ(fields.size(), 2u) << projected.out;
  EXPECT_EQ(fields.at("status"), "initialized");
  ASSERT_EQ(fields.at("tasks").as_array().size(), 2u);
  for (const auto& task : fields.at("tasks").as_array())
    EXPECT_EQ(joined(api::compat::testing::check_task(task)), "");
  EXPECT_EQ(fields.at("tasks").at(0).at("id"), "plan");
  EXPECT_EQ(fields.at("tasks").at(0).at("title"), "Plan login");

  auto text = ar({"run", "status", id});
  EXPECT_EQ(text.code, 0);
  EXPECT_TRUE(contains(text.out, "Run: " + id + "\n")) << text.out;
  EXPECT_TRUE(contains(text.out, "Status: initialized\n")) << text.out;
  EXPECT_TRUE(contains(text.out, "Agent: worker\n")) << text.out;
  EXPECT_TRUE(contains(text.out, "Tasks: 0/2 completed\n")) << text.out;

  auto no_json = ar({"run", "status", id, "--field", "status"});
  EXPECT_EQ(no_json.code, 3);
  EXPECT_TRUE(contains(no_json.err, "--output-format json")) << no_json.err;
  auto bad_field = ar({"run", "status", id, "--output-format", "json", "--field", "nope"});
  EXPECT_EQ(bad_field.code, 3);
  EXPECT_TRUE(contains(bad_field.err, "nope")) << bad_field.err;
  EXPECT_EQ(ar({"run", "status", id, "--output-format", "yaml"}).code, 3);

  auto brief = ar({"run", "brief", id});
  EXPECT_EQ(brief.code, 0) << brief.err;
  EXPECT_TRUE(contains(brief.out, "Build login.")) << brief.out;

  auto ready = ar({"run", "ready", id, "--output-format", "json"});
  ASSERT_EQ(ready.code, 0) << ready.err;
  EXPECT_EQ(joined(api::compat::testing::check_run_detail(json::parse(ready.out))), "");
  EXPECT_EQ(json::parse(ready.out).at("status"), "ready");
}

TEST_P(AgentRunnerCliTest, TaskCommandsTakeTheRunFirst) {
  const std::string id = init_feature_run();
  ASSERT_FALSE(id.empty());
  auto set = ar({"task", "set", id, "plan", "--status", "completed", "--notes", "planned"});
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_TRUE(contains(set.out, "plan")) << set.out;

  auto shown = ar({"task", "show", id, "plan", "--output-format", "json"});
  ASSERT_EQ(shown.code, 0) << shown.err;
  auto task = json::parse(shown.out);
  EXPECT_EQ(joined(api::compat::testing::check_task(task)), "");
  EXPECT_EQ(task.at("status"), "completed");
  EXPECT_EQ(task.at("notes"), "planned");

  ASSERT_EQ(ar({"task", "append-notes", id, "plan", "--text", "and reviewed"}).code, 0);
  auto added = ar({"task", "add", id, "--title", "Write docs", "--body", "the user guide", "--output-format", "json"});
  ASSERT_EQ(added.code, 0) << added.err;
  auto new_task = json::parse(added.out);
  EXPECT_EQ(joined(api::compat::testing::check_task(new_task)), "");
  EXPECT_EQ(new_task.at("title"), "Write docs");
  EXPECT_EQ(new_task.at("body"), "the user guide");

  auto listed = ar({"task", "list", id, "--output-format", "json"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  auto tasks = json::parse(listed.out).as_array();
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_TRUE(contains(std::string(tasks.at(0).at("notes").as_string()), "and reviewed")) << listed.out;
  auto text = ar({"task", "list", id});
  EXPECT_TRUE(contains(text.out, "plan  [completed]  Plan login")) << text.out;

  EXPECT_EQ(ar({"task", "append-notes", id, "plan"}).code, 3);  // no --text
  EXPECT_EQ(ar({"task", "add", id}).code, 3);                  // no --title
  EXPECT_EQ(ar({"task", "set", id, "plan"}).code, 3);          // nothing to set
  EXPECT_EQ(ar({"task", "set", id, "nope", "--status", "completed"}).code, 3);
  EXPECT_EQ(ar({"task", "frob", id}).code, 3);
}

TEST_P(AgentRunnerCliTest, AttachmentsAddListDownloadAndRemove) {
  const std::string id = init_feature_run();
  ASSERT_FALSE(id.empty());
  std::mt19937 gen(7);
  std::string bytes(300 * 1024 + 3, '\0');
  for (auto& c : bytes) c = static_cast<char>(gen() & 0xff);
  std::ofstream(work_ / "report.bin", std::ios::binary) << bytes;

  auto added = ar({"attachment", "add", id, "report.bin", "--output-format", "json"});
  ASSERT_EQ(added.code, 0) << added.err;
  auto attachment = json::parse(added.out);
  EXPECT_EQ(joined(api::compat::testing::check_attachment(attachment)), "");
  EXPECT_EQ(attachment.at("name"), "report.bin");
  EXPECT_EQ(attachment.at("size").to_number<std::uint64_t>(), bytes.size());
  const std::string att(attachment.at("id").as_string());

  auto listed = ar({"attachment", "list", id, "--output-format", "json"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  auto entries = json::parse(listed.out).as_array();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(joined(api::compat::testing::check_attachment_entry(entries.at(0))), "");
  EXPECT_EQ(entries.at(0).at("ownerRunId"), json::value(id));

  auto got = ar({"attachment", "download", id, att, "copy.bin"});
  ASSERT_EQ(got.code, 0) << got.err;
  EXPECT_TRUE(read_file(work_ / "copy.bin") == bytes);
  EXPECT_EQ(ar({"attachment", "download", id, att, "copy.bin"}).code, 3);  // never over a file
  fs::create_directory(work_ / "into");
  auto into = ar({"attachment", "download", id, att, "into", "--output-format", "json"});
  ASSERT_EQ(into.code, 0) << into.err;
  EXPECT_EQ(json::parse(into.out).at("outputPath"), json::value((work_ / "into" / "report.bin").string()));
  EXPECT_TRUE(read_file(work_ / "into" / "report.bin") == bytes);

  auto removed = ar({"attachment", "remove", id, att, "--output-format", "json"});
  ASSERT_EQ(removed.code, 0) << removed.err;
  auto result = json::parse(removed.out);
  EXPECT_EQ(joined(api::compat::testing::check_attachment_remove_result(result)), "");
  EXPECT_EQ(result.at("changed"), true);
  EXPECT_EQ(json::parse(ar({"attachment", "list", id, "--output-format", "json"}).out).as_array().size(), 0u);
  EXPECT_EQ(ar({"attachment", "add", id, "missing.bin"}).code, 3);
}

TEST_P(AgentRunnerCliTest, InitRunAndResumeExitByHowTheRunEnded) {
  auto init = ar({"init", "--agent", "talker", "--name", "greeter", "--output-format", "json", "say", "hi"});
  ASSERT_EQ(init.code, 0) << init.err;
  auto initialized = json::parse(init.out);
  EXPECT_EQ(joined(api::compat::testing::check_run_detail(initialized)), "");
  EXPECT_EQ(initialized.at("status"), "initialized");
  EXPECT_EQ(initialized.at("name"), "greeter");
  auto with_task = ar({"init", "--agent", "worker", "--assignment", "feature", "--var", "feature=x", "--add-task",
                       "Review it", "--max-retries", "0", "--output-format", "json"});
  ASSERT_EQ(with_task.code, 0) << with_task.err;
  auto tasks = json::parse(with_task.out).at("tasks").as_array();
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks.at(2).at("title"), "Review it");
  EXPECT_EQ(ar({"init", "--agent", "worker", "--timeout-sec", "soon", "x"}).code, 3);
  auto left_out = ar({"init", "--agent", "worker", "--backend-session-id", "s1", "x"});
  EXPECT_EQ(left_out.code, 3);
  EXPECT_TRUE(contains(left_out.err, "--backend-session-id is agent-runner's")) << left_out.err;

  // Followed to its end: their RunDetail last, exit 0 for success.
  auto ran = ar({"run", "--agent", "talker", "--output-format", "json", "hello"});
  ASSERT_EQ(ran.code, 0) << ran.out << ran.err;
  auto final_run = json::parse(ran.out);
  EXPECT_EQ(joined(api::compat::testing::check_run_detail(final_run)), "");
  EXPECT_EQ(final_run.at("status"), "success");
  const std::string id(final_run.at("runId").as_string());

  auto resumed = ar({"run", "--resume-run", id, "once", "more"});
  EXPECT_EQ(resumed.code, 0) << resumed.out << resumed.err;
  EXPECT_EQ(api_run(id).at("sessions").as_array().size(), 2u);

  // Exit codes by status: 2 blocked, 1 exhausted, 4 error.
  write_agent("stuck", "mock", "{steps: [" + exec_agentry({"task", "set", "plan", "--status", "blocked"}) + "]}");
  EXPECT_EQ(ar({"run", "--agent", "stuck", "--assignment", "feature", "--var", "feature=x"}).code, 2);
  write_agent("idler", "mock", "{steps: [{say: 'not today'}]}");
  EXPECT_EQ(ar({"run", "--agent", "idler", "--assignment", "feature", "--var", "feature=x", "--max-retries", "0"}).code,
            1);
  EXPECT_EQ(ar({"run", "--agent", "failer", "go"}).code, 4);
  EXPECT_EQ(ar({"run", "go"}).code, 3);  // no --agent

  // --detach: at once, the run id; a daemon drives it (embedded: refused, nothing would).
  auto detached = ar({"run", "--agent", "talker", "--detach", "--output-format", "json", "hello"});
  if (!connected()) {
    EXPECT_EQ(detached.code, 3) << detached.out;
    EXPECT_TRUE(contains(detached.err, "--detach needs a daemon")) << detached.err;
    return;
  }
  ASSERT_EQ(detached.code, 0) << detached.err;
  auto answer = json::parse(detached.out).as_object();
  EXPECT_EQ(answer.size(), 2u);
  EXPECT_EQ(answer.at("detached"), true);
  const std::string child(answer.at("runId").as_string());
  wait_for_run(child, [](const json::object& r) { return r.at("status") == "success"; });
  auto resumed_detached = ar({"run", "--resume-run", child, "--detach", "again"});
  EXPECT_EQ(resumed_detached.code, 0) << resumed_detached.err;
}

// An agent written for agent-runner reports its tasks with "$AGENT_RUNNER_CMD" from its
// shell: the engine points the variable at the link, and the calls reach the run.
TEST_P(AgentRunnerCliTest, AnAgentReportsItsTasksWithAgentRunnerCmd) {
  auto step = [](const std::string& task) {
    return "{exec: ['/bin/sh', '-c', '\"$AGENT_RUNNER_CMD\" task set \"$AGENT_RUNNER_RUN_ID\" " + task +
           " --status completed --notes \"by $(basename \"$AGENT_RUNNER_CMD\")\"']}";
  };
  write_agent("reporter", "mock", "{steps: [" + step("plan") + ", " + step("build") + "]}");
  auto r = ar({"run", "--agent", "reporter", "--assignment", "feature", "--var", "feature=x", "--output-format", "json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto detail = json::parse(r.out);
  EXPECT_EQ(detail.at("status"), "success");
  for (const auto& task : detail.at("tasks").as_array()) {
    EXPECT_EQ(task.at("status"), "completed") << task;
    EXPECT_EQ(task.at("notes"), "by agent-runner") << task;
  }
}

// --connect may name the compat listener: it serves agentry's own dialect to our client.
TEST_P(AgentRunnerCliTest, ReachesTheDaemonThroughItsCompatListener) {
  if (!connected()) GTEST_SKIP() << "a daemon's listener";
  start_daemon({{"AGENTRY_COMPAT_LISTEN", "ws://127.0.0.1:0/"}});
  const std::string id = init_feature_run();
  ASSERT_FALSE(id.empty());
  const std::string compat = "ws://127.0.0.1:" + std::to_string(daemon_->compat_port()) + "/";
  auto set = ar({"task", "set", id, "plan", "--status", "completed"}, {{"AGENTRY_CONNECT", ""}, {"AGENT_RUNNER_CONNECT", compat}});
  ASSERT_EQ(set.code, 0) << set.err;
  auto status = ar({"run", "status", id, "--connect", compat, "--output-format", "json", "--field", "tasks"},
                   {{"AGENTRY_CONNECT", ""}});
  ASSERT_EQ(status.code, 0) << status.err;
  EXPECT_EQ(json::parse(status.out).at("tasks").at(0).at("status"), "completed");
  // Nothing listening: a refusal (3), as agent-runner counts an unreachable daemon.
  EXPECT_EQ(ar({"run", "status", id, "--connect", "ws://127.0.0.1:1/"}, {{"AGENTRY_CONNECT", ""}}).code, 3);
}

// `init --run-id`: the initialized run read again from its definitions as they are now.
TEST_P(AgentRunnerCliTest, InitWithRunIdReinitializesFromTheEditedAssignment) {
  const std::string id = init_feature_run();
  ASSERT_FALSE(id.empty());
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
  - id: build
    title: Build it
  - id: docs
    title: Document {{feature}}
---
Work carefully.
)");
  auto again = ar({"init", "--run-id", id, "--agent", "worker", "--assignment", "feature", "--var", "feature=signup",
                   "--output-format", "json"});
  ASSERT_EQ(again.code, 0) << again.out << again.err;
  auto detail = json::parse(again.out);
  EXPECT_EQ(joined(api::compat::testing::check_run_detail(detail)), "");
  EXPECT_EQ(detail.at("runId"), json::value(id));
  EXPECT_EQ(detail.at("status"), "initialized");
  const auto& tasks = detail.at("tasks").as_array();
  ASSERT_EQ(tasks.size(), 3u) << again.out;
  EXPECT_EQ(tasks.at(0).at("title"), "Plan signup");
  EXPECT_EQ(tasks.at(2).at("title"), "Document signup");
  // Without --agent: the run's own agent and assignment, read again.
  auto own = ar({"init", "--run-id", id, "--var", "feature=export", "--output-format", "json"});
  ASSERT_EQ(own.code, 0) << own.out << own.err;
  EXPECT_EQ(json::parse(own.out).at("tasks").at(0).at("title"), "Plan export");
  EXPECT_EQ(all_runs().size(), 1u) << "the same run, not a new one";

  ASSERT_EQ(cli({"ready", id}).code, 0);
  auto refused = ar({"init", "--run-id", id});
  EXPECT_NE(refused.code, 0);
  EXPECT_TRUE(contains(refused.err, "this run is ready")) << refused.err;
  auto on_run = ar({"run", "--run-id", id, "--agent", "worker", "x"});
  EXPECT_EQ(on_run.code, 3);
  EXPECT_TRUE(contains(on_run.err, "--run-id")) << on_run.err;
}

// Without --agent, --backend runs agent-runner's ad-hoc agent; with one, the agent must
// unlock it.
TEST_P(AgentRunnerCliTest, BackendWithoutAgentRunsAnAdHocAgent) {
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
TEST_P(AgentRunnerCliTest, RunSettingsAnswerWhetherTheyChanged) {
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
TEST_P(AgentRunnerCliTest, MessagesAuditSchedulesAndTheRunsLifecycle) {
  // Queued messages wait for a live session: one that sleeps a while.
  write_agent("sleeper", "mock", "{steps: [{sleepMs: 3000}, {say: done}]}");
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
TEST_P(AgentRunnerCliTest, ListAndShowAnswerInItsShapes) {
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

INSTANTIATE_TEST_SUITE_P(Modes, AgentRunnerCliTest, ::testing::Values(CliMode::embedded, CliMode::connected),
                         mode_name);

}  // namespace
}  // namespace agentry::integration
