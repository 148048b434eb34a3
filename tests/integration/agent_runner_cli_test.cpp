// agent-runner's command set for agents (docs/agent-runner.md "The agent-runner
// command"), run by the `agent-runner` link the build puts beside agentry, in both modes:
// its grammar, its JSON checked against agent-runner's schemas, its exit codes, and an
// agent that reports its tasks with it from inside its run.
#include "agent_runner_cli_fixture.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <random>

namespace agentry::integration {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;
using namespace agent_runner_cli;

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

INSTANTIATE_TEST_SUITE_P(Modes, AgentRunnerCliTest, ::testing::Values(CliMode::embedded, CliMode::connected),
                         mode_name);

}  // namespace
}  // namespace agentry::integration
