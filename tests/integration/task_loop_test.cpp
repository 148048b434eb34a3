// The agent's side of the task loop through the real daemon: the first prompt lists the
// tasks and the commands that report them, and an agent that runs those commands, as
// written, from its own shell ends the run. The agent here is a shell script on the
// subprocess backend that follows its prompt literally; tests/e2e does the same with the
// real Codex and Claude Code binaries.
#include "daemon_fixture.hpp"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using namespace std::chrono_literals;

// Reads the reporting command from the prompt ("- finished a task:  <cmd> task set ..."),
// then does what `action` says for every pending task the prompt lists, and records what
// it saw in the workspace.
std::string follower_script(const std::string& action) {
  return "set -e\n"
         "[ -f prompt.txt ] || printf '%s' \"$AGENTRY_PROMPT\" > prompt.txt\n"
         "env > agent-env.txt\n"
         "cmd=$(sed -n 's/^- finished a task: *\\(.*\\) task set .*/\\1/p' prompt.txt)\n"
         "test -n \"$cmd\"\n"
         "for id in $(sed -n 's/^- \\([a-z/-]*\\) \\[pending\\] .*/\\1/p' prompt.txt); do\n"
         "  " + action + "\n"
         "done\n"
         "echo reported\n";
}

class TaskLoopTest : public DaemonTest {
 protected:
  void define_follower(const std::string& name, const std::string& action) {
    dir_.write_file("config/agents/" + name + "/agent.md",
                    "---\nschemaVersion: 1\nbackend: subprocess\nbackendConfig:\n  subprocess:\n    command: [sh, -c, " +
                        json::serialize(json::value(follower_script(action))) + "]\n---\nYou follow instructions.\n");
  }
  std::string start_feature(const std::string& agent) { return start_feature_run(agent); }
  std::string read_work_file(const std::string& name) {
    std::ifstream in(work_ / name);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
};

TEST_F(TaskLoopTest, TheAgentsPathIsTheOneItsDefinitionAskedForWithAgentryInFront) {
  // The daemon puts its own directory first so that a bare `agentry` is this one, in
  // front of the definition's PATH (not in place of it).
  dir_.write_file("config/agents/pathy/agent.md",
                  "---\nschemaVersion: 1\nbackend: subprocess\nbackendConfig:\n  subprocess:\n"
                  "    command: [sh, -c, 'printf %s \"$PATH\" > path.txt']\n"
                  "    env: {PATH: '/opt/agent-tools/bin:/usr/bin:/bin'}\n---\nPrints its PATH.\n");
  const std::string run = start_agent_run("pathy");
  wait_until_settled(run);
  const std::string bin_dir = test::DaemonProcess::binary_path().parent_path().string();
  EXPECT_EQ(read_work_file("path.txt"), bin_dir + ":/opt/agent-tools/bin:/usr/bin:/bin");
}

TEST_F(TaskLoopTest, TheFirstPromptListsTheTasksAndTheCommandsAfterTheInstructions) {
  define_follower("follower", "true");
  const std::string run = start_feature("follower");
  wait_until_settled(run);
  const std::string prompt = read_work_file("prompt.txt");
  for (const char* expected : {"You follow instructions.", "Work carefully.", "## Tasks", "- plan [pending] Plan dark mode",
                               "- build [pending] Build it", "- review/check [pending] Review the change",
                               "    Read the diff.", "task set <task-id> --status completed", "--status blocked",
                               "task append-notes <task-id>", "task add", "Build dark mode."})
    EXPECT_NE(prompt.find(expected), std::string::npos) << expected << " missing from:\n" << prompt;
  // Instructions, then tasks, then the message.
  EXPECT_LT(prompt.find("Work carefully."), prompt.find("## Tasks"));
  EXPECT_LT(prompt.find("## Tasks"), prompt.find("Build dark mode."));
  // The command names this very binary, absolutely.
  EXPECT_NE(prompt.find(test::DaemonProcess::binary_path().string() + " task set"), std::string::npos) << prompt;
  // Nothing was reported: every retry's nudge names the unfinished tasks and the commands.
  EXPECT_EQ(run_status(run), "exhausted");
  bool nudged = false;
  for (const auto& e : timeline(run))
    if (e.at("kind") == "attempt.started" && e.at("payload").as_object().contains("prompt")) {
      const std::string nudge(e.at("payload").at("prompt").as_string());
      nudged = nudge.find("plan (Plan dark mode)") != std::string::npos &&
               nudge.find("task set <task-id> --status completed") != std::string::npos;
    }
  EXPECT_TRUE(nudged);
}

TEST_F(TaskLoopTest, AnAgentThatRunsTheCommandsEndsTheRunInOneAttempt) {
  define_follower("finisher", "sh -c \"$cmd task set $id --status completed --notes done\"");
  const std::string run = start_feature("finisher");
  EXPECT_EQ(wait_until_settled(run), "success") << json::serialize(get_run(run));
  auto detail = get_run(run);
  EXPECT_EQ(detail.at("totalAttemptCount").as_int64(), 1);
  for (const auto& task : detail.at("tasks").as_array()) {
    EXPECT_EQ(task.at("status"), "completed") << json::serialize(task);
    EXPECT_EQ(task.at("notes"), "done");
  }
  // The agent called back as itself.
  auto audit = client().get("/api/runs/" + run + "/audit").json().at("events").as_array();
  bool by_agent = false;
  for (const auto& e : audit) by_agent = by_agent || (e.at("type") == "task.updated" && e.at("actor") == "cli");
  EXPECT_TRUE(by_agent);
}

TEST_F(TaskLoopTest, AnAgentThatBlocksATaskEndsTheRunBlocked) {
  define_follower("blocker", "sh -c \"$cmd task set $id --status blocked --notes 'no access'\"; break");
  const std::string run = start_feature("blocker");
  EXPECT_EQ(wait_until_settled(run), "blocked");
  EXPECT_EQ(get_run(run).at("totalAttemptCount").as_int64(), 1);
}

TEST_F(TaskLoopTest, TheSectionCanBeReplacedOrTurnedOff) {
  dir_.write_file("config/templates/task-section.md", "TASKS FOR {{run_id}}:\n{{task_list}}\n{{commands}}\n");
  define_follower("custom", "true");
  const std::string run = start_feature("custom");
  wait_until_settled(run);
  const std::string prompt = read_work_file("prompt.txt");
  EXPECT_NE(prompt.find("TASKS FOR " + run + ":\n- plan [pending]"), std::string::npos) << prompt;
  EXPECT_EQ(prompt.find("## Tasks"), std::string::npos);

  dir_.write_file("config/agents/quiet/agent.md",
                  "---\nschemaVersion: 1\nbackend: subprocess\ntaskPrompt: false\nbackendConfig:\n  subprocess:\n"
                  "    command: [sh, -c, '[ -f prompt.txt ] || printf %s \"$AGENTRY_PROMPT\" > prompt.txt']\n---\nQuiet.\n");
  std::filesystem::remove(work_ / "prompt.txt");
  const std::string quiet = start_feature("quiet");
  wait_until_settled(quiet);
  const std::string plain = read_work_file("prompt.txt");
  EXPECT_EQ(plain.find("TASKS FOR"), std::string::npos) << plain;
  EXPECT_NE(plain.find("Quiet."), std::string::npos) << plain << json::serialize(get_run(quiet));
}

class TaskLoopAuthTest : public TaskLoopTest {
 protected:
  static constexpr const char* token = "daemon-secret-7f3a";
  void SetUp() override {
    TaskLoopTest::SetUp();
    start_daemon({{"AGENTRY_DAEMON_AUTH_ENABLED", "1"}, {"AGENTRY_DAEMON_TOKEN", token}});
  }
  std::string settle(const std::string& run) {
    std::string status = "running";
    for (int i = 0; i < 600 && status == "running"; ++i) {
      std::this_thread::sleep_for(50ms);
      status = std::string(authed().get("/api/runs/" + run).json().at("run").at("status").as_string());
    }
    return status;
  }
  test::HttpClient authed() const {
    auto c = client();
    c.set_default_header("Authorization", std::string("Bearer ") + token);
    return c;
  }
};

TEST_F(TaskLoopAuthTest, TheAgentGetsATokenForItsOwnRunOnly) {
  // The agent reports, then hands its token to the test (a stand-in for a curious agent).
  define_follower("finisher", "sh -c \"$cmd task set $id --status completed\"; echo \"$AGENTRY_DAEMON_TOKEN\" > token.txt");
  auto other = authed().post_json("/api/runs/init", json::object{{"agent", "worker"},
                                                                 {"assignment", "feature"},
                                                                 {"callerCwd", work_.string()},
                                                                 {"cliVars", {{"feature", "x"}}}});
  ASSERT_EQ(other.status, 201) << other.body;
  const std::string other_id(other.json().at("run").at("runId").as_string());
  auto created = authed().post_json("/api/runs", json::object{{"agent", "finisher"},
                                                              {"assignment", "feature"},
                                                              {"callerCwd", work_.string()},
                                                              {"cliVars", {{"feature", "dark mode"}}}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string run(created.json().at("run").at("runId").as_string());
  EXPECT_EQ(settle(run), "success");

  // Never the daemon's token in the agent's environment.
  EXPECT_EQ(read_work_file("agent-env.txt").find(token), std::string::npos);
  std::string run_token = read_work_file("token.txt");
  while (!run_token.empty() && run_token.back() == '\n') run_token.pop_back();
  ASSERT_EQ(run_token.rfind("agr_", 0), 0u) << run_token;
  // The run has ended: its token is revoked.
  auto revoked = client().get("/api/runs/" + run + "/tasks", {{"Authorization", "Bearer " + run_token}});
  EXPECT_EQ(revoked.status, 401) << revoked.body;
}

TEST_F(TaskLoopAuthTest, ALiveRunsTokenReachesItsOwnRoutesAndNoOthers) {
  // The agent hands over its token and waits.
  dir_.write_file("config/agents/waiter/agent.md",
                  "---\nschemaVersion: 1\nbackend: subprocess\nbackendConfig:\n  subprocess:\n    command: [sh, -c, "
                  "'echo \"$AGENTRY_DAEMON_TOKEN\" > token.txt; sleep 30']\n---\nWait.\n");
  auto other = authed().post_json("/api/runs/init", json::object{{"agent", "worker"},
                                                                 {"assignment", "feature"},
                                                                 {"callerCwd", work_.string()},
                                                                 {"cliVars", {{"feature", "x"}}}});
  const std::string other_id(other.json().at("run").at("runId").as_string());
  auto created = authed().post_json("/api/runs", json::object{{"agent", "waiter"},
                                                              {"assignment", "feature"},
                                                              {"callerCwd", work_.string()},
                                                              {"cliVars", {{"feature", "dark mode"}}}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string run(created.json().at("run").at("runId").as_string());
  std::string run_token;
  for (int i = 0; i < 200 && run_token.size() < 10; ++i) {
    std::this_thread::sleep_for(50ms);
    run_token = read_work_file("token.txt");
  }
  while (!run_token.empty() && run_token.back() == '\n') run_token.pop_back();
  ASSERT_EQ(run_token.rfind("agr_", 0), 0u);
  test::HttpClient agent = client();
  agent.set_default_header("Authorization", "Bearer " + run_token);

  // Its own run: tasks, queue, detail.
  EXPECT_EQ(agent.get("/api/runs/" + run + "/tasks").status, 200);
  EXPECT_EQ(agent.patch_json("/api/runs/" + run + "/tasks/plan", json::object{{"status", "in_progress"}}).status, 200);
  EXPECT_EQ(agent.post_json("/api/runs/" + run + "/queued-resume-messages", json::object{{"text", "later"}}).status, 201);
  EXPECT_EQ(agent.get("/api/runs/" + run).status, 200);
  EXPECT_NO_THROW((void)agent.sse("/api/runs/" + run + "/events/timeline"));
  // Everything else: 403.
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/api/runs/" + other_id},
           {"GET", "/api/runs/" + other_id + "/tasks"},
           {"PATCH", "/api/runs/" + other_id + "/tasks/plan"},
           {"POST", "/api/runs/" + run + "/abort"},
           {"POST", "/api/runs/" + run + "/archive"},
           {"GET", "/api/runs?global=true"},
           {"GET", "/api/agents"},
           {"GET", "/api/events/run-summaries"},
           {"GET", "/api/projects/trusted"},
           {"GET", "/api/projects/trust?dir=" + work_.string()},
           {"POST", "/api/projects/trust"},
           {"POST", "/api/projects/trust/revoke"},
           {"GET", "/api/runs/" + other_id + "/events/timeline"}}) {
    auto response = agent.request(method, path, method == "GET" ? "" : R"({"status":"completed"})");
    EXPECT_EQ(response.status, 403) << method << " " << path << ": " << response.body;
    EXPECT_EQ(error_code_of(response), "FORBIDDEN") << path;
  }
  // A child run is let in under its own parent only.
  auto child = agent.post_json("/api/runs/init", json::object{{"agent", "worker"},
                                                              {"assignment", "feature"},
                                                              {"callerCwd", work_.string()},
                                                              {"cliVars", {{"feature", "child"}}}});
  ASSERT_EQ(child.status, 201) << child.body;
  EXPECT_EQ(child.json().at("run").at("parentRunId"), json::value(run));
  auto adopted = agent.post_json("/api/runs/init", json::object{{"agent", "worker"},
                                                                {"assignment", "feature"},
                                                                {"callerCwd", work_.string()},
                                                                {"parentRunId", other_id},
                                                                {"cliVars", {{"feature", "child"}}}});
  EXPECT_EQ(adopted.status, 403);
  ASSERT_EQ(authed().post_json("/api/runs/" + run + "/abort", json::object{}).status, 200);
  EXPECT_EQ(settle(run), "aborted");
  EXPECT_EQ(agent.get("/api/runs/" + run + "/tasks").status, 401);
}

// The example config's demo agent (config/agents/demo) reports its tasks with the
// commands a real agent is told to use, through PATH: what a newcomer sees after `make run`.
TEST_F(TaskLoopTest, TheExampleConfigsDemoAgentFinishesItsRun) {
  ASSERT_TRUE(start_daemon_on_example_config()) << "no CMakeCache.txt beside the daemon's bin/";
  auto created = client().post_json("/api/runs", json::object{{"agent", "demo"},
                                                              {"assignment", "implement-feature"},
                                                              {"callerCwd", work_.string()},
                                                              {"cliVars", {{"feature", "dark mode"}}}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string run(created.json().at("runId").as_string());
  EXPECT_EQ(wait_until_settled(run, 60s), "success") << json::serialize(get_run(run));
  EXPECT_EQ(get_run(run).at("totalAttemptCount").as_int64(), 1);
}

}  // namespace
}  // namespace agentry::integration
