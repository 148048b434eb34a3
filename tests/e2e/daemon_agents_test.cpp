// The product's real path: `agentry serve` loads the codex and claude plugins and runs the
// REAL pinned agent binaries against the loopback mock model (tests/e2e/mock_model). Every
// scenario is driven only through the daemon's HTTP API (and its SSE timeline stream):
// agents are definition files, runs are POST /api/runs, answers and aborts are API calls.
// Each test has its own daemon home, config, run cwd, agent HOME, CODEX_HOME and mock; the
// daemon, the mock and any app-server are stopped by the test, and an agent process left
// behind by a run fails it. Skipped loudly only when a binary is not installed
// (scripts/install-agents.sh).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "agent_processes.hpp"
#include "daemon_fixture.hpp"
#include "support/agent_binaries.hpp"
#include "support/codex_app_server.hpp"
#include "support/mock_model.hpp"
#include "support/subprocess.hpp"

namespace agentry::integration {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

enum class Agent { codex, claude };

std::string name_of(Agent agent) { return agent == Agent::codex ? "codex" : "claude"; }
void PrintTo(Agent agent, std::ostream* out) { *out << name_of(agent); }  // test names in ctest

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

class AgentDaemonTest : public DaemonTest {
 protected:
  explicit AgentDaemonTest(Agent agent) : agent_(agent) {}

  void SetUp() override {
    binary_ = agent_ == Agent::codex ? test::codex_binary() : test::claude_binary();
    if (!binary_) {
      std::cerr << test::not_installed_banner(name_of(agent_));
      GTEST_SKIP() << test::not_installed_banner(name_of(agent_));
    }
    DaemonTest::SetUp();
    mock_ = std::make_unique<test::MockModel>(dir_.path() / "model-requests.jsonl");
    agent_home_ = dir_.make_dir("agent-home");
    if (agent_ == Agent::codex) codex_home_ = std::make_unique<test::CodexHome>(*mock_);
  }

  // Stops the daemon (it interrupts live sessions), then fails the test for, and kills,
  // any agent process that is still running with this test's HOME.
  void TearDown() override {
    DaemonTest::TearDown();
    if (!agent_home_.empty()) expect_no_agent_left("HOME=" + agent_home_.string());
  }

  // backendConfig.<agent> for the stdio child: the binary, its homes, the mock.
  json::object stdio_config() const {
    if (agent_ == Agent::codex)
      return {{"command", binary_->string()},
              {"codexHome", codex_home_->path().string()},
              {"env", {{test::kMockKeyName, test::kMockKeyValue}, {"HOME", agent_home_.string()}}}};
    return {{"binary", binary_->string()},
            {"env",
             {{"HOME", agent_home_.string()},
              {"ANTHROPIC_BASE_URL", mock_->anthropic_base_url()},
              {"ANTHROPIC_API_KEY", "dummy"},
              {"CLAUDE_CODE_MAX_RETRIES", "0"}}}};
  }

  // Writes agents/<name>/agent.md for this agent (JSON is a YAML flow map).
  void define(const std::string& name, bool unrestricted, const json::object& backend_config) {
    write_agent(name, name_of(agent_), json::serialize(backend_config),
                std::string("unrestricted: ") + (unrestricted ? "true" : "false") + "\n");
  }
  void define(const std::string& name, bool unrestricted) { define(name, unrestricted, stdio_config()); }

  // The model API path the agent calls: its requests in the mock's log, oldest first.
  std::vector<json::object> model_requests() const {
    return mock_->request_bodies(agent_ == Agent::codex ? "/responses" : "/messages");
  }

  // Everything useful when a scenario fails: the run, its timeline, the daemon's stderr.
  std::string describe(const std::string& run) {
    std::string out = "run: " + json::serialize(get_run(run)) + "\ntimeline:\n";
    for (const json::object& e : timeline(run)) out += "  " + json::serialize(e) + "\n";
    const std::string err = daemon_->stderr_text();
    out += "daemon stderr (tail):\n" + (err.size() > 4000 ? err.substr(err.size() - 4000) : err);
    return out;
  }

  std::vector<json::object> events_of(const std::string& run, const std::string& kind) {
    std::vector<json::object> out;
    for (json::object& e : timeline(run))
      if (e.at("kind").as_string() == kind) out.push_back(std::move(e));
    return out;
  }

  // The status once the run is no longer running (the agents' cold starts take seconds).
  std::string wait_settled(const std::string& run) { return wait_until_settled(run, 90s); }

  // Polls RunDetail.pendingApprovals until it lists one; returns it.
  json::object wait_for_approval(const std::string& run, std::chrono::seconds limit = 60s) {
    const auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
      const json::object detail = get_run(run);
      const json::array& pending = detail.at("pendingApprovals").as_array();
      if (!pending.empty()) return pending.front().as_object();
      if (detail.at("status") != "running") break;
      std::this_thread::sleep_for(50ms);
    }
    ADD_FAILURE() << "no pending approval on " << run << "\n" << describe(run);
    return {};
  }

  Agent agent_;
  std::optional<fs::path> binary_;
  std::unique_ptr<test::MockModel> mock_;
  std::unique_ptr<test::CodexHome> codex_home_;
  fs::path agent_home_;
};

class DaemonAgents : public AgentDaemonTest, public ::testing::WithParamInterface<Agent> {
 protected:
  DaemonAgents() : AgentDaemonTest(GetParam()) {}

  std::pair<std::string, json::object> start_asking(const std::string& message);
  int answer(const std::string& run, const json::object& approval, const std::string& decision);
  std::string only_tool_status(const std::string& run);
};

TEST_P(DaemonAgents, TextTurnEndsInSuccessWithTheMessage) {
  define("talker", true);
  const std::string run = start_agent_run("talker", "SAY: Hello through the daemon.");
  ASSERT_FALSE(run.empty());
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  const json::object detail = get_run(run);
  EXPECT_EQ(detail.at("backend").as_string(), name_of(agent_));
  EXPECT_TRUE(detail.at("backendSessionId").is_string()) << json::serialize(detail);
  bool said = false;
  for (const json::object& e : events_of(run, "message.completed"))
    said = said || e.at("payload").at("text") == "Hello through the daemon.";
  EXPECT_TRUE(said) << describe(run);
  EXPECT_FALSE(events_of(run, "session.checkpoint").empty());
  const std::vector<json::object> finished = events_of(run, "attempt.finished");
  ASSERT_EQ(finished.size(), 1u) << describe(run);
  EXPECT_EQ(finished[0].at("payload").at("outcome"), "success");
}

TEST_P(DaemonAgents, ShellToolWritesAFileInTheRunsCwd) {
  define("writer", true);
  const std::string run = start_agent_run("writer", "SHELL: echo hi > out.txt\nSAY: done");
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  ASSERT_TRUE(fs::exists(work_ / "out.txt")) << describe(run);
  EXPECT_EQ(test::read_file(work_ / "out.txt"), "hi\n");
  const std::vector<json::object> started = events_of(run, "tool.started");
  ASSERT_EQ(started.size(), 1u) << describe(run);
  EXPECT_EQ(started[0].at("payload").at("tool"), "command");
  EXPECT_NE(json::serialize(started[0].at("payload")).find("echo hi > out.txt"), std::string::npos);
  EXPECT_EQ(only_tool_status(run), "completed");
  EXPECT_TRUE(get_run(run).at("pendingApprovals").as_array().empty());
}

// A restricted agent (codex asks only with approvalPolicy untrusted, since on-request runs
// workspace commands unasked; claude asks for every Bash call) told `message`; returns the
// run and the approval it waits on.
std::pair<std::string, json::object> DaemonAgents::start_asking(const std::string& message) {
  json::object config = stdio_config();
  if (agent_ == Agent::codex) config["approvalPolicy"] = "untrusted";
  define("asker", false, config);
  const std::string run = start_agent_run("asker", message);
  return {run, wait_for_approval(run)};
}

// POST /api/runs/:run/approvals/:approvalId {decision}; returns the HTTP status.
int DaemonAgents::answer(const std::string& run, const json::object& approval, const std::string& decision) {
  const test::HttpResponse answered = client().post_json(
      "/api/runs/" + run + "/approvals/" + std::string(approval.at("approvalId").as_string()),
      json::object{{"decision", decision}});
  EXPECT_EQ(answered.status, 200) << answered.body;
  EXPECT_EQ(answered.json().at("result").at("decision").as_string(), decision) << answered.body;
  return answered.status;
}

// The status of the run's one tool.completed event (a failure unless there is exactly one).
std::string DaemonAgents::only_tool_status(const std::string& run) {
  const std::vector<json::object> completed = events_of(run, "tool.completed");
  EXPECT_EQ(completed.size(), 1u) << describe(run);
  return completed.size() == 1 ? std::string(completed[0].at("payload").at("status").as_string()) : "";
}

TEST_P(DaemonAgents, ApprovedCommandRunsAfterTheAnswer) {
  const auto [run, approval] = start_asking("SHELL: touch approved.txt\nSAY: approved and done");
  ASSERT_FALSE(approval.empty());
  EXPECT_EQ(approval.at("kind"), "command");
  EXPECT_NE(std::string(approval.at("summary").as_string()).find("touch approved.txt"), std::string::npos)
      << json::serialize(approval);
  EXPECT_FALSE(fs::exists(work_ / "approved.txt")) << "the command ran before the answer";
  EXPECT_EQ(events_of(run, "approval.request").size(), 1u);

  ASSERT_EQ(answer(run, approval, "approve"), 200);
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_TRUE(fs::exists(work_ / "approved.txt")) << describe(run);
  EXPECT_TRUE(get_run(run).at("pendingApprovals").as_array().empty());
  EXPECT_EQ(only_tool_status(run), "completed");
}

TEST_P(DaemonAgents, DeniedCommandDoesNotRun) {
  const auto [run, approval] = start_asking("SHELL: touch denied.txt\nSAY: fine");
  ASSERT_FALSE(approval.empty());
  ASSERT_EQ(answer(run, approval, "deny"), 200);
  // The agent hears the refusal as the tool's result and ends its turn normally.
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_FALSE(fs::exists(work_ / "denied.txt")) << describe(run);
  EXPECT_EQ(only_tool_status(run), "declined");
}

TEST_P(DaemonAgents, AbortMidTurnStopsTheAgentQuickly) {
  define("staller", true);
  const std::string run = start_agent_run("staller", "SAY: x\nSTALL: 30");
  ASSERT_FALSE(run.empty());
  // Mid-turn: the streamed "x" arrives on the timeline stream, then the model stalls.
  test::SseReader stream = client().sse("/api/runs/" + run + "/events/timeline");
  bool streaming = false;
  for (const auto deadline = Clock::now() + 60s; !streaming && Clock::now() < deadline;) {
    const std::optional<test::SseEvent> event = stream.next(1000ms);
    if (!event) {
      ASSERT_FALSE(stream.ended()) << describe(run);
      continue;
    }
    const json::value data = json::parse(event->data);
    streaming = data.at("kind") == "message.delta";
  }
  ASSERT_TRUE(streaming) << "no message.delta before the stall\n" << describe(run);
  stream.close();
  const std::string marker = "AGENTRY_RUN_ID=" + run;
  const std::vector<long> agents = processes_with_env(marker);
  ASSERT_FALSE(agents.empty()) << "no agent process carries " << marker;

  const auto begun = Clock::now();
  const test::HttpResponse aborted = client().post_json("/api/runs/" + run + "/abort", json::object{{"reason", "enough"}});
  const double took = ms_between(begun, Clock::now());
  ASSERT_EQ(aborted.status, 200) << aborted.body;
  std::cerr << "[ measure ] " << name_of(agent_) << " POST /abort mid-turn answered in " << took << " ms\n";
  RecordProperty("abort_ms", static_cast<int>(took));
  EXPECT_TRUE(aborted.json().at("accepted").as_bool()) << aborted.body;
  EXPECT_LT(took, 5000.0) << "the abort is accepted at once; 5 s means something waited on the agent";
  EXPECT_EQ(wait_until_settled(run, 5s), "aborted") << "the agent is interrupted in tens of milliseconds";
  std::cerr << "[ measure ] " << name_of(agent_) << " POST /abort mid-turn -> aborted in "
            << ms_between(begun, Clock::now()) << " ms\n";
  expect_no_agent_left(marker, "the aborted attempt");
  const std::vector<json::object> finished = events_of(run, "attempt.finished");
  ASSERT_EQ(finished.size(), 1u) << describe(run);
  EXPECT_EQ(finished[0].at("payload").at("outcome"), "interrupted") << describe(run);
}

TEST_P(DaemonAgents, ResumeContinuesTheSameBackendSession) {
  define("talker", true);
  const std::string run = start_agent_run("talker", "SAY: First reply from the mock.");
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  const json::value first_session = get_run(run).at("backendSessionId");
  ASSERT_TRUE(first_session.is_string()) << describe(run);
  const std::size_t requests_before = model_requests().size();

  const auto begun = Clock::now();
  const test::HttpResponse resumed =
      client().post_json("/api/runs/" + run + "/resume", json::object{{"message", "SAY: again"}});
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  std::cerr << "[ measure ] " << name_of(agent_) << " POST /resume -> success (poll 20 ms): "
            << ms_between(begun, Clock::now()) << " ms\n";

  const json::object detail = get_run(run);
  EXPECT_EQ(detail.at("totalSessionCount"), 2);
  EXPECT_EQ(detail.at("backendSessionId"), first_session) << "the resumed session is a new backend session";
  const json::array& sessions = detail.at("sessions").as_array();
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[1].at("backendSessionId"), first_session);
  bool said_again = false;
  for (const json::object& e : events_of(run, "message.completed")) said_again = said_again || e.at("payload").at("text") == "again";
  EXPECT_TRUE(said_again) << describe(run);

  // The second session's model request carries the first turn: the session was resumed.
  const std::vector<json::object> requests = model_requests();
  ASSERT_GT(requests.size(), requests_before);
  const std::string last = json::serialize(requests.back());
  EXPECT_NE(last.find("First reply from the mock."), std::string::npos) << "the earlier turn is not in " << last;
  EXPECT_NE(last.find("SAY: again"), std::string::npos);
}

// Asking a finished run: the agent answers from a fork of the run's conversation (Claude:
// --fork-session; Codex: an ephemeral thread/fork). The mock model sees the earlier turn
// and the question; the run's timeline, backend session and saved sessions stay as they were.
TEST_P(DaemonAgents, AskIsAnsweredWithoutATurnOfTheRun) {
  define("talker", true);
  const std::string run = start_agent_run("talker", "SAY: First reply from the mock.");
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  const json::object before = get_run(run);
  const std::size_t events_before = timeline(run).size();
  const auto saved_sessions = [&] {
    std::size_t n = 0;
    const fs::path root =
        agent_ == Agent::codex ? codex_home_->path() / "sessions" : agent_home_ / ".claude" / "projects";
    if (fs::exists(root))
      for (const auto& e : fs::recursive_directory_iterator(root)) n += e.path().extension() == ".jsonl";
    return n;
  };
  const std::size_t saved_before = saved_sessions();

  const test::HttpResponse asked = client().post_json(
      "/api/runs/" + run + "/ask", json::object{{"question", "SAY: The first reply went out."}, {"timeoutSec", 90}});
  ASSERT_EQ(asked.status, 200) << asked.body << "\n" << describe(run);
  EXPECT_EQ(asked.json().at("answer"), "The first reply went out.") << asked.body;
  EXPECT_EQ(asked.json().at("backend").as_string(), name_of(agent_));
  std::cerr << "[ measure ] " << name_of(agent_) << " ask answered by a fork in " << asked.json().at("durationMs")
            << " ms (the daemon's figure: gathering the state, a fresh instance, the agent's cold start)\n";
  const std::string last = json::serialize(model_requests().back());
  EXPECT_NE(last.find("First reply from the mock."), std::string::npos) << "the fork lacks the session's turn: " << last;
  EXPECT_NE(last.find("The question:"), std::string::npos) << last;

  const json::object after = get_run(run);
  EXPECT_EQ(timeline(run).size(), events_before) << describe(run);
  EXPECT_EQ(after.at("backendSessionId"), before.at("backendSessionId"));
  EXPECT_EQ(after.at("totalSessionCount"), before.at("totalSessionCount"));
  EXPECT_EQ(saved_sessions(), saved_before) << "the fork was saved as a session of its own";
}

// Per-turn latency through the daemon: POST /api/runs -> run success for a text turn, each
// run a fresh agent process (printed, not asserted; compare with measure_direct.py).
// The task loop from the agent's side: an assignment with two tasks, whose message tells
// the mock model which of the prompt's commands to run. The model is the real agent's.
class DaemonTaskLoop : public DaemonAgents {
 protected:
  std::string agentry() const { return test::DaemonProcess::binary_path().string(); }
  void define_two_tasks(const std::string& message) {
    dir_.write_file("config/assignments/two/assignment.md",
                    "---\nschemaVersion: 1\nmessage: " + json::serialize(json::value(message)) +
                        "\ntasks:\n  - id: plan\n    title: Plan the change\n  - id: build\n    title: Build it\n---\n"
                        "Do the work.\n");
  }
  std::string start_two(test::HttpClient http) {
    const test::HttpResponse created = http.post_json(
        "/api/runs", json::object{{"agent", "tasker"}, {"assignment", "two"}, {"callerCwd", work_.string()}});
    EXPECT_EQ(created.status, 201) << created.body;
    return created.status == 201 ? std::string(created.json().at("run").at("runId").as_string()) : std::string();
  }
  // The text of the first model request: what the agent was told.
  std::string first_request_text() {
    const std::vector<json::object> requests = model_requests();
    return requests.empty() ? std::string() : json::serialize(requests.front());
  }
};

TEST_P(DaemonTaskLoop, AnAgentThatReportsEachTaskEndsTheRunInOneAttempt) {
  define("tasker", true);
  define_two_tasks("SHELL: " + agentry() + " task set plan --status completed --notes planned\nSHELL: " + agentry() +
                   " task set build --status completed\nSAY: both done");
  const std::string run = start_two(client());
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  const json::object detail = get_run(run);
  EXPECT_EQ(detail.at("totalAttemptCount").as_int64(), 1) << describe(run);
  for (const auto& task : detail.at("tasks").as_array()) EXPECT_EQ(task.at("status"), "completed");
  // What the model first read: both tasks and the exact commands.
  const std::string told = first_request_text();
  for (const std::string& expected : {std::string("plan [pending] Plan the change"), std::string("build [pending] Build it"),
                                     agentry() + " task set <task-id> --status completed",
                                     agentry() + " task set <task-id> --status blocked"})
    EXPECT_NE(told.find(expected), std::string::npos) << expected << " not in the first model request";
}

// Agents shorten the command to its bare name; the agent's shell must still find it
// (Codex runs commands in a login shell, whose profile would reset PATH).
TEST_P(DaemonTaskLoop, AnAgentThatRunsTheBareAgentryCommandReportsItsTasks) {
  define("tasker", true);
  define_two_tasks("SHELL: agentry task set plan --status completed\nSHELL: agentry task set build --status completed"
                   "\nSAY: both done");
  const std::string run = start_two(client());
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  const json::object detail = get_run(run);
  EXPECT_EQ(detail.at("totalAttemptCount").as_int64(), 1) << describe(run);
  for (const auto& task : detail.at("tasks").as_array()) EXPECT_EQ(task.at("status"), "completed");
}

TEST_P(DaemonTaskLoop, AnAgentThatBlocksATaskEndsTheRunBlocked) {
  define("tasker", true);
  define_two_tasks("SHELL: " + agentry() + " task set plan --status blocked --notes no-access\nSAY: stuck");
  const std::string run = start_two(client());
  ASSERT_EQ(wait_settled(run), "blocked") << describe(run);
  EXPECT_EQ(get_run(run).at("totalAttemptCount").as_int64(), 1);
}

TEST_P(DaemonTaskLoop, WithAuthTheAgentsOwnTokenWorksAndReachesNoOtherRun) {
  const std::string daemon_token = "daemon-secret-e2e";
  start_daemon({{"AGENTRY_DAEMON_AUTH_ENABLED", "1"}, {"AGENTRY_DAEMON_TOKEN", daemon_token}});
  test::HttpClient http = client();
  http.set_default_header("Authorization", "Bearer " + daemon_token);
  const test::HttpResponse other = http.post_json(
      "/api/runs/init", json::object{{"agent", "worker"}, {"assignment", "feature"}, {"callerCwd", work_.string()},
                                     {"cliVars", {{"feature", "x"}}}});
  ASSERT_EQ(other.status, 201) << other.body;
  const std::string other_id(other.json().at("run").at("runId").as_string());
  define("tasker", true);
  define_two_tasks("SHELL: " + agentry() + " show " + other_id + " > other.txt 2>&1; echo $? > other.rc\nSHELL: " +
                   agentry() + " task set plan --status completed\nSHELL: " + agentry() +
                   " task set build --status completed\nSAY: done");
  const std::string run = start_two(http);
  std::string status = "running";
  for (int i = 0; i < 1800 && status == "running"; ++i) {
    std::this_thread::sleep_for(50ms);
    status = std::string(http.get("/api/runs/" + run).json().at("run").at("status").as_string());
  }
  EXPECT_EQ(status, "success") << json::serialize(http.get("/api/runs/" + run).json()) << daemon_->stderr_text();
  // The other run was out of the agent's reach: the CLI was refused (exit 3, FORBIDDEN).
  EXPECT_EQ(test::read_file(work_ / "other.rc"), "3\n") << test::read_file(work_ / "other.txt");
  EXPECT_NE(test::read_file(work_ / "other.txt").find("reaches only its own"), std::string::npos)
      << test::read_file(work_ / "other.txt");
}

INSTANTIATE_TEST_SUITE_P(RealAgents, DaemonTaskLoop, ::testing::Values(Agent::codex, Agent::claude),
                         [](const ::testing::TestParamInfo<Agent>& param) { return name_of(param.param); });

INSTANTIATE_TEST_SUITE_P(RealAgents, DaemonAgents, ::testing::Values(Agent::codex, Agent::claude),
                         [](const ::testing::TestParamInfo<Agent>& param) { return name_of(param.param); });

// codex over a server the test runs: the daemon's run connects to it over ws:// or a unix socket.
class DaemonCodexServer : public AgentDaemonTest {
 protected:
  DaemonCodexServer() : AgentDaemonTest(Agent::codex) {}

  void text_turn_over(test::AppServer::Kind kind) {
    const test::AppServer server(*binary_, *codex_home_, kind);
    define("remote", true, remote_config(server, kind));
    const std::string run = start_agent_run("remote", "SAY: Hello over a socket.");
    ASSERT_EQ(wait_settled(run), "success") << describe(run);
    bool said = false;
    for (const json::object& e : events_of(run, "message.completed"))
      said = said || e.at("payload").at("text") == "Hello over a socket.";
    EXPECT_TRUE(said) << describe(run);
    EXPECT_TRUE(test::process_alive(server.pid())) << "the server is not the run's to stop";
  }

  // backendConfig.codex for a run on `server`.
  static json::object remote_config(const test::AppServer& server, test::AppServer::Kind kind) {
    if (kind == test::AppServer::Kind::ws) return {{"transport", "ws"}, {"url", server.url()}};
    return {{"transport", "uds"}, {"socket", server.socket()}};
  }

  // A run of agent "remote" on `server` whose turn streams, then stalls for `stall_s`.
  std::string start_stalling_run(const test::AppServer& server, int stall_s,
                                 test::AppServer::Kind kind = test::AppServer::Kind::ws) {
    define("remote", true, remote_config(server, kind));
    const std::string run = start_agent_run(
        "remote", "SAY: Working on it.\nSTALL: " + std::to_string(stall_s) + "\nSAY: Finished after the restart.");
    // The turn is under way once codex has called the model (and checkpointed its thread).
    const auto deadline = Clock::now() + 60s;
    while (Clock::now() < deadline && (model_requests().empty() || get_run(run).at("backendSessionId").is_null()))
      std::this_thread::sleep_for(20ms);
    EXPECT_EQ(model_requests().size(), 1u) << describe(run);
    return run;
  }

  // The data of the run's first audit event of `type`, or {}.
  json::object audit_data(const std::string& run, const std::string& type) {
    const json::value audit = client().get("/api/runs/" + run + "/audit").json();
    for (const json::value& e : audit.at("events").as_array())
      if (e.at("type").as_string() == type) return e.at("data").as_object();
    return {};
  }

  bool said(const std::string& run, const std::string& text) {
    for (const json::object& e : events_of(run, "message.completed"))
      if (std::string(e.at("payload").at("text").as_string()).find(text) != std::string::npos) return true;
    return false;
  }
};

TEST_F(DaemonCodexServer, TextTurnOverWebSocket) { text_turn_over(test::AppServer::Kind::ws); }

TEST_F(DaemonCodexServer, TextTurnOverUnixSocket) { text_turn_over(test::AppServer::Kind::uds); }

// The server is not the daemon's child, so AGENTRY_CONNECT and AGENTRY_RUN_ID reach the
// shell of its commands only through the thread's shell_environment_policy.set.
TEST_F(DaemonCodexServer, TasksAreReportedFromTheShellOfAServerThatIsNotOurs) {
  const test::AppServer server(*binary_, *codex_home_, test::AppServer::Kind::ws);
  define("remote", true, remote_config(server, test::AppServer::Kind::ws));
  const std::string agentry = test::DaemonProcess::binary_path().string();
  dir_.write_file("config/assignments/two/assignment.md",
                  "---\nschemaVersion: 1\nmessage: " +
                      json::serialize(json::value("SHELL: " + agentry + " task set plan --status completed\nSHELL: " +
                                                  agentry + " task set build --status completed\nSAY: done")) +
                      "\ntasks:\n  - id: plan\n    title: Plan\n  - id: build\n    title: Build\n---\nWork.\n");
  const test::HttpResponse created = client().post_json(
      "/api/runs", json::object{{"agent", "remote"}, {"assignment", "two"}, {"callerCwd", work_.string()}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string run(created.json().at("runId").as_string());
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_EQ(get_run(run).at("totalAttemptCount").as_int64(), 1) << describe(run);
}

// codex's apply_patch (the mock's WRITE) edits the run's cwd; the turn's diff is in the timeline.
TEST_F(DaemonCodexServer, AFileChangeIsRecordedAsTheAttemptsDiff) {
  define("patcher", true);
  const std::string run = start_agent_run("patcher", "WRITE: plan.md # Plan\\n- ship it\nSAY: planned");
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_EQ(test::read_file(work_ / "plan.md"), "# Plan\n- ship it\n");
  const std::vector<json::object> diffs = events_of(run, "diff");
  ASSERT_EQ(diffs.size(), 1u) << "one recorded diff per turn (the live ones are not stored)\n" << describe(run);
  EXPECT_NE(std::string(diffs[0].at("payload").at("diff").as_string()).find("+- ship it"), std::string::npos)
      << describe(run);
  const std::vector<json::object> tools = events_of(run, "tool.completed");
  ASSERT_EQ(tools.size(), 1u) << describe(run);
  EXPECT_EQ(tools[0].at("payload").at("tool"), "file_change");
}

// Codex's Linux sandbox (docs/backends/codex.md, "The Linux sandbox"). codex prefers a
// `bwrap` on its PATH to its own copy; these tests put a stand-in first on the child's PATH,
// so that their result does not depend on whether the machine has Debian's bubblewrap.
class DaemonCodexSandbox : public AgentDaemonTest {
 protected:
  DaemonCodexSandbox() : AgentDaemonTest(Agent::codex) {}

  void TearDown() override {
    AgentDaemonTest::TearDown();
    std::error_code ignored;
    if (!stand_in_.empty()) fs::remove_all(stand_in_, ignored);
  }

  // A private /var/tmp/agentry-e2e-bwrap-XXXXXX/bwrap holding `script` (codex passes over a
  // bwrap in the temp dir or under the run's cwd), first on the PATH of a restarted daemon
  // (the host gives agents the daemon's PATH, after its own bin dir); the restricted agent
  // "sandboxed" (approvalPolicy untrusted, the default sandbox workspace-write).
  void define_with_bwrap(const std::string& script) {
    std::string pattern = "/var/tmp/agentry-e2e-bwrap-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern << ": " << std::strerror(errno);
    stand_in_ = pattern;
    const fs::path bwrap = stand_in_ / "bwrap";
    test::write_file(bwrap, "#!/bin/sh\n" + script);
    fs::permissions(bwrap, fs::perms::owner_all);
    const char* path = std::getenv("PATH");
    start_daemon({{"PATH", stand_in_.string() + ":" + (path != nullptr ? path : "/usr/bin:/bin")}});
    json::object config = stdio_config();
    config["approvalPolicy"] = "untrusted";
    define("sandboxed", false, config);
  }

  // Starts `message` on "sandboxed", approves its one command, waits for the end.
  std::string approve_and_settle(const std::string& message) {
    const std::string run = start_agent_run("sandboxed", message);
    const json::object approval = wait_for_approval(run);
    if (approval.empty()) return run;
    const test::HttpResponse answered =
        client().post_json("/api/runs/" + run + "/approvals/" + std::string(approval.at("approvalId").as_string()),
                           json::object{{"decision", "approve"}});
    EXPECT_EQ(answered.status, 200) << answered.body;
    EXPECT_EQ(wait_settled(run), "success") << describe(run);
    return run;
  }

  std::vector<json::object> error_notices(const std::string& run) {
    std::vector<json::object> out;
    for (json::object& e : events_of(run, "notice"))
      if (e.at("payload").as_object().if_contains("level") && e.at("payload").at("level") == "error")
        out.push_back(std::move(e));
    return out;
  }

  fs::path stand_in_;
};

// Debian 12's bubblewrap (0.8.0) has no --argv0, so codex runs its helper by the bare name
// codex-linux-sandbox, found on PATH only through links codex does not make while CODEX_HOME
// is in the temp dir (this test's is). The stand-in is codex's own bubblewrap, with --argv0
// hidden from its help as in 0.8.0; the plugin's links make the approved command run.
TEST_F(DaemonCodexSandbox, ApprovedCommandRunsUnderABubblewrapWithoutArgv0) {
  const fs::path own = binary_->parent_path().parent_path() / "codex-resources" / "bwrap";
  if (!fs::exists(own)) GTEST_SKIP() << "codex ships no bubblewrap at " << own << "; the stand-in needs it";
  ASSERT_TRUE(fs::path(codex_home_->path()).string().rfind(fs::temp_directory_path().string(), 0) == 0)
      << "the case needs CODEX_HOME in the temp dir: " << codex_home_->path();
  define_with_bwrap("# bubblewrap 0.8.0 as Debian 12 ships it: no --argv0\n"
                    "if [ \"$1\" = --help ]; then \"" + own.string() + "\" --help | grep -v -e --argv0; exit 0; fi\n"
                    "exec \"" + own.string() + "\" \"$@\"\n");
  if (HasFatalFailure()) return;
  const std::string run = approve_and_settle("SHELL: touch approved.txt\nSAY: approved and done");
  EXPECT_TRUE(fs::exists(work_ / "approved.txt")) << describe(run);
  const std::vector<json::object> tools = events_of(run, "tool.completed");
  ASSERT_EQ(tools.size(), 1u) << describe(run);
  EXPECT_EQ(tools[0].at("payload").at("status"), "completed") << describe(run);
  EXPECT_TRUE(error_notices(run).empty()) << describe(run);
}

// A machine that refuses bubblewrap its user namespaces (a container): the approved command
// cannot run, and the timeline says why and what to do instead of a silent no-op.
TEST_F(DaemonCodexSandbox, ASandboxThatCannotStartIsNamedInTheTimeline) {
  // Its help lists bubblewrap 0.8.0's options: codex passes over a bwrap that lacks some.
  define_with_bwrap("# bubblewrap on a machine without unprivileged user namespaces\n"
                    "if [ \"$1\" = --help ]; then\n"
                    "  echo 'usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]'\n"
                    "  for o in --help --version --args --unshare-all --share-net --unshare-user --unshare-user-try "
                    "--unshare-ipc --unshare-pid --unshare-net --unshare-uts --unshare-cgroup --unshare-cgroup-try "
                    "--userns --userns2 --disable-userns --assert-userns-disabled --pidns --uid --gid --hostname "
                    "--chdir --clearenv --setenv --unsetenv --lock-file --sync-fd --bind --bind-try --dev-bind "
                    "--dev-bind-try --ro-bind --ro-bind-try --bind-fd --ro-bind-fd --remount-ro --exec-label "
                    "--file-label --proc --dev --tmpfs --mqueue --dir --file --bind-data --ro-bind-data --symlink "
                    "--seccomp --add-seccomp-fd --block-fd --userns-block-fd --info-fd --json-status-fd --new-session "
                    "--die-with-parent --as-pid-1 --cap-add --cap-drop --perms --size --chmod; do\n"
                    "    echo \"    $o\"\n"
                    "  done\n"
                    "  exit 0\n"
                    "fi\n"
                    "echo \"bwrap: No permissions to creating new namespace, likely because the kernel does not "
                    "allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl "
                    "kernel.unprivileged_userns_clone=1'.\" >&2\nexit 1\n");
  if (HasFatalFailure()) return;
  const std::string run = approve_and_settle("SHELL: touch approved.txt\nSAY: approved and done");
  EXPECT_FALSE(fs::exists(work_ / "approved.txt")) << describe(run);
  const std::vector<json::object> tools = events_of(run, "tool.completed");
  ASSERT_EQ(tools.size(), 1u) << describe(run);
  EXPECT_EQ(tools[0].at("payload").at("status"), "failed") << describe(run);
  const std::vector<json::object> notices = error_notices(run);
  ASSERT_EQ(notices.size(), 1u) << describe(run);
  const json::object& notice = notices[0].at("payload").as_object();
  EXPECT_EQ(notice.at("toolCallId"), tools[0].at("payload").at("toolCallId"));
  const std::string message(notice.at("message").as_string());
  for (const std::string& words : {std::string("sandbox did not start, so the command did not run"),
                                   std::string("No permissions to creating new namespace"),
                                   std::string("does not allow them"), std::string("danger-full-access")})
    EXPECT_NE(message.find(words), std::string::npos) << words << " not in: " << message;
}

// Restart recovery (ext/detach.h): the app-server is not ours, so its turn outlives the daemon.

TEST_F(DaemonCodexServer, KilledDaemonsRunIsReadoptedAndFinishes) {
  const test::AppServer server(*binary_, *codex_home_, test::AppServer::Kind::ws);
  const std::string run = start_stalling_run(server, 8);  // outlasts the restart, even on a loaded machine
  daemon_->kill9();
  start_daemon();
  const json::object detail = get_run(run);
  EXPECT_EQ(detail.at("status"), "running") << "taken over, not finalized: " << describe(run);
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_TRUE(said(run, "Finished after the restart.")) << describe(run);
  EXPECT_EQ(model_requests().size(), 1u) << "the turn was followed, not started again";
  const json::object reconciled = audit_data(run, "run.controller_reconciled");
  EXPECT_EQ(reconciled.at("decision"), "readopted") << json::serialize(reconciled);
  EXPECT_EQ(reconciled.at("remoteStatus"), "active");
  EXPECT_EQ(reconciled.at("transportType"), "ws");
  EXPECT_EQ(reconciled.at("backendSessionId"), detail.at("backendSessionId"));
}

TEST_F(DaemonCodexServer, KilledDaemonsRunOverAUnixSocketIsReadopted) {
  const test::AppServer server(*binary_, *codex_home_, test::AppServer::Kind::uds);
  const std::string run = start_stalling_run(server, 8, test::AppServer::Kind::uds);
  daemon_->kill9();
  start_daemon();
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_TRUE(said(run, "Finished after the restart.")) << describe(run);
  const json::object reconciled = audit_data(run, "run.controller_reconciled");
  EXPECT_EQ(reconciled.at("decision"), "readopted") << json::serialize(reconciled);
  EXPECT_EQ(reconciled.at("transportType"), "uds");
}

TEST_F(DaemonCodexServer, StoppedDaemonDetachesTheRunAndTheNextOneTakesItOver) {
  const test::AppServer server(*binary_, *codex_home_, test::AppServer::Kind::ws);
  const std::string run = start_stalling_run(server, 8);
  const auto begun = Clock::now();
  EXPECT_EQ(daemon_->stop(SIGTERM), 0);
  std::cout << "[ measure ] SIGTERM -> daemon exit with a detached ws run: " << ms_between(begun, Clock::now())
            << " ms\n";
  start_daemon();
  const json::object detached = audit_data(run, "run.controller_detached");
  EXPECT_EQ(detached.at("transportType"), "ws") << describe(run);
  EXPECT_EQ(detached.at("backend"), "codex");
  EXPECT_FALSE(detached.at("backendSessionId").is_null());
  EXPECT_EQ(events_of(run, "session.detached").size(), 1u) << describe(run);
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_TRUE(said(run, "Finished after the restart.")) << describe(run);
  EXPECT_EQ(audit_data(run, "run.controller_reconciled").at("decision"), "readopted");
  EXPECT_TRUE(audit_data(run, "run.finished").contains("status"));
}

TEST_F(DaemonCodexServer, AbortAfterTheTakeOverInterruptsTheRemoteTurn) {
  const test::AppServer server(*binary_, *codex_home_, test::AppServer::Kind::ws);
  const std::string run = start_stalling_run(server, 60);
  daemon_->kill9();
  start_daemon();
  const auto deadline = Clock::now() + 30s;
  while (Clock::now() < deadline && audit_data(run, "run.controller_reconciled").empty())
    std::this_thread::sleep_for(20ms);
  ASSERT_EQ(audit_data(run, "run.controller_reconciled").at("decision"), "readopted") << describe(run);
  const auto response = client().post_json("/api/runs/" + run + "/abort", json::object{});
  EXPECT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(wait_settled(run), "aborted") << describe(run);
  // codex itself confirmed the interrupt (turn/completed "interrupted"): neither the
  // plugin's nor the host's deadline ended the attempt.
  const std::vector<json::object> finished = events_of(run, "attempt.finished");
  ASSERT_FALSE(finished.empty()) << describe(run);
  const json::object& payload = finished.back().at("payload").as_object();
  EXPECT_EQ(payload.at("outcome"), "interrupted") << describe(run);
  EXPECT_FALSE(payload.contains("forced")) << describe(run);
  EXPECT_EQ(std::string(payload.at("message").as_string()).find("did not confirm"), std::string::npos)
      << describe(run);
}

// stdio: the app-server was the dead daemon's child, so there is nothing to take over.
TEST_F(DaemonCodexServer, KilledDaemonsStdioRunIsFinalized) {
  define("local", true);
  const std::string run = start_agent_run("local", "SAY: Working on it.\nSTALL: 60");
  const auto deadline = Clock::now() + 60s;
  while (Clock::now() < deadline && (model_requests().empty() || get_run(run).at("backendSessionId").is_null()))
    std::this_thread::sleep_for(20ms);
  daemon_->kill9();
  start_daemon();
  ASSERT_EQ(wait_settled(run), "error") << describe(run);
  const json::object reconciled = audit_data(run, "run.controller_reconciled");
  EXPECT_EQ(reconciled.at("decision"), "finalized") << json::serialize(reconciled);
  EXPECT_EQ(reconciled.at("reason"), "controller_gone");
  EXPECT_NE(std::string(get_run(run).at("statusReason").as_string()).find("agentry restarted while the run was active"),
            std::string::npos)
      << describe(run);
}

TEST_F(DaemonCodexServer, RunWhoseServerIsGoneIsFinalizedOnRestart) {
  std::string run;
  {
    const test::AppServer server(*binary_, *codex_home_, test::AppServer::Kind::ws);
    run = start_stalling_run(server, 60);
    daemon_->kill9();
  }  // the server goes too
  start_daemon();
  ASSERT_EQ(wait_settled(run), "error") << describe(run);
  const json::object reconciled = audit_data(run, "run.controller_reconciled");
  EXPECT_EQ(reconciled.at("decision"), "finalized") << json::serialize(reconciled);
  EXPECT_EQ(reconciled.at("reason"), "remote_unreachable");
  EXPECT_NE(std::string(get_run(run).at("statusReason").as_string()).find("cannot connect"), std::string::npos)
      << describe(run);
}

}  // namespace
}  // namespace agentry::integration
