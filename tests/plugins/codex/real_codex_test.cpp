// The codex plugin through its C ABI against the REAL pinned codex binary and the
// loopback mock model: every test gets its own mock, CODEX_HOME and workspace, and stops
// every process it started. Skipped (loudly) only when the binary is not installed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>
#include <thread>

#include "codex_instance.hpp"
#include "support/agent_binaries.hpp"
#include "support/codex_app_server.hpp"
#include "support/mock_model.hpp"
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

class RealCodex : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::optional<std::filesystem::path> bin = codex_binary();
    if (!bin) GTEST_SKIP() << not_installed_banner("codex");
    binary_ = bin->string();
    mock_ = std::make_unique<MockModel>(log_dir_.path() / "model-requests.jsonl");
    home_ = std::make_unique<CodexHome>(*mock_);
  }

  json::object stdio() const { return json::object{{"command", binary_}, {"codexHome", home_->path().string()}}; }

  // Runs one turn to its end in an instance of its own; returns the thread id.
  static std::string finished_turn(const json::object& backend, const std::string& prompt) {
    CodexInstance codex;
    EXPECT_EQ(codex.start({.prompt = prompt, .backend = backend}), AGENTRY_OK);
    EXPECT_EQ(codex.wait_finished().at("outcome"), "success");
    const auto checkpoints = codex.events_of(AGENTRY_EVENT_CHECKPOINT);
    return checkpoints.empty() ? std::string() : std::string(checkpoints[0].payload.at("resumeToken").as_string());
  }

  // The turns codex asked the model for, oldest first.
  std::size_t model_calls() const { return mock_->request_bodies("/responses").size(); }

  TempDir log_dir_;
  std::string binary_;
  std::unique_ptr<MockModel> mock_;
  std::unique_ptr<CodexHome> home_;
};

TEST_F(RealCodex, TextTurnStreamsAndCompletes) {
  CodexInstance codex;
  const auto begun = Clock::now();
  ASSERT_EQ(codex.start({.prompt = "SAY: Hello from agentry.", .backend = stdio()}), AGENTRY_OK);
  const json::object finished = codex.wait_finished();
  std::cout << "[ measure ] stdio text turn through the plugin (spawn..FINISHED): " << ms_since(begun) << " ms\n";
  EXPECT_EQ(finished.at("outcome"), "success") << json::serialize(finished);
  // The thread as soon as it is open, then the turn once codex confirms it.
  const auto checkpoints = codex.events_of(AGENTRY_EVENT_CHECKPOINT);
  ASSERT_EQ(checkpoints.size(), 2u);
  EXPECT_EQ(checkpoints[0].payload.at("resumeToken"), finished.at("threadId"));
  EXPECT_EQ(checkpoints[1].payload.at("resumeToken"), finished.at("threadId"));
  EXPECT_EQ(checkpoints[1].payload.at("turnId"), finished.at("turnId"));
  const auto completed = codex.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0].payload.at("text"), "Hello from agentry.");
  std::string streamed;
  for (const RecordedEvent& e : codex.events_of(AGENTRY_EVENT_MESSAGE_DELTA)) {
    EXPECT_NE(e.flags & AGENTRY_EVENT_FLAG_EPHEMERAL, 0u);
    streamed += std::string(e.payload.at("text").as_string());
  }
  EXPECT_EQ(streamed, "Hello from agentry.");
  EXPECT_FALSE(codex.events_of(AGENTRY_EVENT_USAGE).empty());
}

TEST_F(RealCodex, ShellToolWritesAFileInTheWorkspace) {
  CodexInstance codex;
  ASSERT_EQ(
      codex.start({.prompt = "SHELL: echo hi > out.txt\nSAY: wrote it", .backend = stdio(), .unrestricted = true}),
      AGENTRY_OK);
  EXPECT_EQ(codex.wait_finished().at("outcome"), "success");
  EXPECT_EQ(read_file(codex.workspace().path() / "out.txt"), "hi\n");
  const auto started = codex.events_of(AGENTRY_EVENT_TOOL_STARTED);
  const auto done = codex.events_of(AGENTRY_EVENT_TOOL_COMPLETED);
  ASSERT_EQ(started.size(), 1u);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(started[0].payload.at("tool"), "command");
  EXPECT_NE(std::string(started[0].payload.at("command").as_string()).find("echo hi > out.txt"), std::string::npos);
  EXPECT_EQ(done[0].payload.at("exitCode"), 0);
  EXPECT_EQ(done[0].payload.at("status"), "completed");
  EXPECT_TRUE(codex.events_of(AGENTRY_EVENT_APPROVAL_REQUEST).empty());
}

TEST_F(RealCodex, CommandOutputStreamsWhileTheCommandRuns) {
  CodexInstance codex;
  // Each line after a pause: output a command prints at once can reach codex before it
  // streams deltas, and then shows only in the completed item (an idle machine loses line1).
  ASSERT_EQ(codex.start({.prompt = "SHELL: for i in 1 2 3; do sleep 0.3; echo line$i; done\nSAY: counted",
                         .backend = stdio(),
                         .unrestricted = true}),
            AGENTRY_OK);
  EXPECT_EQ(codex.wait_finished().at("outcome"), "success");
  const auto done = codex.events_of(AGENTRY_EVENT_TOOL_COMPLETED);
  ASSERT_EQ(done.size(), 1u);
  std::string streamed;
  const auto deltas = codex.events_of(AGENTRY_EVENT_TOOL_OUTPUT_DELTA);
  for (const RecordedEvent& e : deltas) {
    EXPECT_EQ(e.flags, AGENTRY_EVENT_FLAG_EPHEMERAL);
    EXPECT_EQ(e.payload.at("toolCallId"), done[0].payload.at("toolCallId"));
    streamed += e.payload.at("text").as_string();
  }
  EXPECT_GE(deltas.size(), 2u) << "output arrives while the command runs, not only at its end";
  EXPECT_EQ(streamed, "line1\nline2\nline3\n");
  EXPECT_EQ(done[0].payload.at("output").as_string(), streamed);
}

// The mock's WRITE makes codex call apply_patch: a file change, asked about under
// "untrusted", and recorded as the turn's diff.
TEST_F(RealCodex, FileChangeIsApprovedAppliedAndRecordedAsTheTurnsDiff) {
  CodexInstance codex;
  json::object backend = stdio();
  backend["approvalPolicy"] = "untrusted";
  ASSERT_EQ(codex.start({.prompt = "WRITE: notes.txt first line\\nsecond line\nSAY: wrote the notes",
                         .backend = backend}),
            AGENTRY_OK);
  const json::object ask = codex.wait_for(AGENTRY_EVENT_APPROVAL_REQUEST);
  ASSERT_FALSE(ask.empty()) << "no APPROVAL_REQUEST";
  EXPECT_EQ(ask.at("kind"), "file_change") << json::serialize(ask);
  EXPECT_NE(std::string(ask.at("summary").as_string()).find("notes.txt"), std::string::npos) << json::serialize(ask);
  EXPECT_FALSE(std::filesystem::exists(codex.workspace().path() / "notes.txt"));
  ASSERT_EQ(codex.send_input(AGENTRY_INPUT_APPROVAL,
                             json::serialize(json::object{{"approvalId", ask.at("approvalId")}, {"decision", "approve"}})),
            AGENTRY_OK);
  EXPECT_EQ(codex.wait_finished().at("outcome"), "success");
  EXPECT_EQ(read_file(codex.workspace().path() / "notes.txt"), "first line\nsecond line\n");
  const auto done = codex.events_of(AGENTRY_EVENT_TOOL_COMPLETED);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].payload.at("tool"), "file_change");
  EXPECT_EQ(done[0].payload.at("status"), "completed");
  std::string recorded;
  for (const RecordedEvent& e : codex.events_of(AGENTRY_EVENT_DIFF))
    if (e.flags == 0) recorded = e.payload.at("diff").as_string();
  EXPECT_NE(recorded.find("+second line"), std::string::npos) << "the turn's diff is recorded: " << recorded;
}

TEST_F(RealCodex, ApprovalIsAnsweredThroughSendInput) {
  CodexInstance codex;
  json::object backend = stdio();
  backend["approvalPolicy"] = "untrusted";  // on-request would let `touch` in the workspace run unasked
  ASSERT_EQ(codex.start({.prompt = "SHELL: touch approved.txt\nSAY: approved and done", .backend = backend}),
            AGENTRY_OK);
  const json::object ask = codex.wait_for(AGENTRY_EVENT_APPROVAL_REQUEST);
  ASSERT_FALSE(ask.empty()) << "no APPROVAL_REQUEST";
  EXPECT_EQ(ask.at("kind"), "command");
  EXPECT_NE(std::string(ask.at("summary").as_string()).find("touch approved.txt"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(codex.workspace().path() / "approved.txt"));
  EXPECT_EQ(codex.send_input(AGENTRY_INPUT_APPROVAL, R"({"approvalId":"nope","decision":"approve"})"),
            AGENTRY_ERR_NOT_FOUND);
  const std::string answer =
      json::serialize(json::object{{"approvalId", ask.at("approvalId")}, {"decision", "approve"}});
  EXPECT_EQ(codex.send_input(AGENTRY_INPUT_APPROVAL, answer), AGENTRY_OK);
  EXPECT_EQ(codex.wait_finished().at("outcome"), "success");
  EXPECT_TRUE(std::filesystem::exists(codex.workspace().path() / "approved.txt"));
  EXPECT_EQ(codex.send_input(AGENTRY_INPUT_APPROVAL, answer), AGENTRY_ERR_INVALID_STATE);  // the run is over
}

TEST_F(RealCodex, DeniedCommandDoesNotRun) {
  CodexInstance codex;
  json::object backend = stdio();
  backend["approvalPolicy"] = "untrusted";
  ASSERT_EQ(codex.start({.prompt = "SHELL: touch denied.txt\nSAY: fine", .backend = backend}), AGENTRY_OK);
  const json::object ask = codex.wait_for(AGENTRY_EVENT_APPROVAL_REQUEST);
  ASSERT_FALSE(ask.empty());
  ASSERT_EQ(codex.send_input(AGENTRY_INPUT_APPROVAL,
                             json::serialize(json::object{{"approvalId", ask.at("approvalId")}, {"decision", "deny"}})),
            AGENTRY_OK);
  EXPECT_EQ(codex.wait_finished().at("outcome"), "success");
  EXPECT_FALSE(std::filesystem::exists(codex.workspace().path() / "denied.txt"));
  const auto done = codex.events_of(AGENTRY_EVENT_TOOL_COMPLETED);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].payload.at("status"), "declined");
}

TEST_F(RealCodex, UnrestrictedRunsAutoApproveAndSaySo) {
  CodexInstance codex;
  json::object backend = stdio();
  backend["approvalPolicy"] = "untrusted";  // codex asks; the plugin answers for an unrestricted run
  ASSERT_EQ(codex.start({.prompt = "SHELL: touch auto.txt\nSAY: done", .backend = backend, .unrestricted = true}),
            AGENTRY_OK);
  EXPECT_EQ(codex.wait_finished().at("outcome"), "success");
  EXPECT_TRUE(std::filesystem::exists(codex.workspace().path() / "auto.txt"));
  EXPECT_TRUE(codex.events_of(AGENTRY_EVENT_APPROVAL_REQUEST).empty());
  bool recorded = false;
  for (const RecordedEvent& e : codex.events_of(AGENTRY_EVENT_NOTICE))
    recorded |=
        std::string(e.payload.at("message").as_string()).find("auto-approved run command:") != std::string::npos;
  EXPECT_TRUE(recorded) << "no NOTICE recording the auto-approval";
}

TEST_F(RealCodex, InterruptWhileAnApprovalWaitsCancelsIt) {
  CodexInstance codex;
  json::object backend = stdio();
  backend["approvalPolicy"] = "untrusted";
  ASSERT_EQ(codex.start({.prompt = "SHELL: touch never.txt\nSAY: no", .backend = backend}), AGENTRY_OK);
  const json::object ask = codex.wait_for(AGENTRY_EVENT_APPROVAL_REQUEST);
  ASSERT_FALSE(ask.empty());
  EXPECT_EQ(codex.interrupt("changed my mind"), AGENTRY_OK);
  const json::object finished = codex.wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "interrupted");
  EXPECT_FALSE(std::filesystem::exists(codex.workspace().path() / "never.txt"));
  // The request was answered "cancel" by the plugin: a late answer finds nothing.
  EXPECT_NE(codex.send_input(AGENTRY_INPUT_APPROVAL, json::serialize(json::object{{"approvalId", ask.at("approvalId")},
                                                                                  {"decision", "approve"}})),
            AGENTRY_OK);
}

TEST_F(RealCodex, InterruptMidTurnEndsInterrupted) {
  CodexInstance codex;
  ASSERT_EQ(codex.start({.prompt = "SAY: Starting a long answer\nSTALL: 30\nSAY: never sent", .backend = stdio()}),
            AGENTRY_OK);
  ASSERT_FALSE(codex.wait_for(AGENTRY_EVENT_MESSAGE_DELTA).empty());
  const auto begun = Clock::now();
  EXPECT_EQ(codex.interrupt("user asked"), AGENTRY_OK);
  EXPECT_EQ(codex.interrupt("again"), AGENTRY_OK);  // idempotent
  const json::object finished = codex.wait_finished(20s);
  std::cout << "[ measure ] interrupt() -> FINISHED (incl. app-server shutdown): " << ms_since(begun) << " ms\n";
  EXPECT_EQ(finished.at("outcome"), "interrupted");
  EXPECT_EQ(finished.at("message"), "interrupted: user asked");
  EXPECT_LT(ms_since(begun), 10000);
}

TEST_F(RealCodex, TimeoutEndsTheTurnWithAnError) {
  CodexInstance codex;
  ASSERT_EQ(codex.start({.prompt = "SAY: slow\nSTALL: 30", .backend = stdio(), .timeout_sec = 2}), AGENTRY_OK);
  const json::object finished = codex.wait_finished(30s);
  EXPECT_EQ(finished.at("outcome"), "error");
  // On a loaded machine codex may not confirm the interrupt in time; the message then
  // says so after the timeout itself.
  EXPECT_EQ(finished.at("message").as_string().subview(0, 19), "timed out after 2 s") << json::serialize(finished);
}

TEST_F(RealCodex, FailedModelCallEndsInError) {
  CodexInstance codex;
  ASSERT_EQ(codex.start({.prompt = "FAIL: 500", .backend = stdio()}), AGENTRY_OK);
  const json::object finished = codex.wait_finished();
  EXPECT_EQ(finished.at("outcome"), "error");
  EXPECT_FALSE(finished.at("message").as_string().empty());
  bool error_notice = false;
  for (const RecordedEvent& e : codex.events_of(AGENTRY_EVENT_NOTICE)) error_notice |= e.payload.at("level") == "error";
  EXPECT_TRUE(error_notice);
}

TEST_F(RealCodex, ResumeInANewInstanceContinuesTheThread) {
  std::string thread;
  {
    CodexInstance first;
    ASSERT_EQ(first.start({.prompt = "SAY: First reply.", .backend = stdio()}), AGENTRY_OK);
    ASSERT_EQ(first.wait_finished().at("outcome"), "success");
    thread = std::string(first.events_of(AGENTRY_EVENT_CHECKPOINT).at(0).payload.at("resumeToken").as_string());
  }
  CodexInstance second;
  const auto begun = Clock::now();
  ASSERT_EQ(second.start({.prompt = "SAY: Second reply.", .backend = stdio(), .resume_token = thread}), AGENTRY_OK);
  const json::object finished = second.wait_finished();
  std::cout << "[ measure ] new app-server + thread/resume + one turn: " << ms_since(begun) << " ms\n";
  EXPECT_EQ(finished.at("outcome"), "success") << json::serialize(finished);
  EXPECT_EQ(finished.at("threadId").as_string(), thread);
  EXPECT_EQ(second.events_of(AGENTRY_EVENT_CHECKPOINT).at(0).payload.at("resumeToken").as_string(), thread);
  EXPECT_EQ(second.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED).at(0).payload.at("text"), "Second reply.");
}

TEST_F(RealCodex, ResumingAnUnknownThreadFails) {
  CodexInstance codex;
  ASSERT_EQ(
      codex.start({.prompt = "SAY: x", .backend = stdio(), .resume_token = "01a22800-0000-7000-8000-000000000000"}),
      AGENTRY_OK);
  const json::object finished = codex.wait_finished();
  EXPECT_EQ(finished.at("outcome"), "error");
  EXPECT_NE(std::string(finished.at("message").as_string()).find("could not resume thread"), std::string::npos);
}

TEST_F(RealCodex, MessageInputJoinsTheRunningTurn) {
  CodexInstance codex;
  ASSERT_EQ(codex.start({.prompt = "SAY: Working\nSTALL: 2\nSAY: still working", .backend = stdio()}), AGENTRY_OK);
  ASSERT_FALSE(codex.wait_for(AGENTRY_EVENT_MESSAGE_DELTA).empty());
  EXPECT_EQ(codex.send_input(AGENTRY_INPUT_MESSAGE, R"({"text":"SAY: noted"})"), AGENTRY_OK);
  const json::object finished = codex.wait_finished();
  EXPECT_EQ(finished.at("outcome"), "success") << json::serialize(finished);
  for (const RecordedEvent& e : codex.events_of(AGENTRY_EVENT_NOTICE))
    EXPECT_EQ(std::string(e.payload.at("message").as_string()).find("not delivered"), std::string::npos)
        << json::serialize(e.payload);
}

// The launcher records the app-server's pid (it execs codex, so the pid is codex's).
json::object pid_launcher(const std::filesystem::path& pid_file) {
  return json::object{
      {"name", "record-pid"},
      {"command", json::array{"/bin/sh", "-c", "echo $$ > '" + pid_file.string() + "'; exec \"$@\"", "sh"}},
      {"env", json::object()}};
}

long read_pid(const std::filesystem::path& file) {
  for (int i = 0; i < 200 && !std::filesystem::exists(file); ++i) std::this_thread::sleep_for(10ms);
  return std::stol(read_file(file));
}

TEST_F(RealCodex, AppServerDeathMidTurnEndsInAnError) {
  TempDir scratch;
  CodexInstance codex;
  ASSERT_EQ(
      codex.start(
          {.prompt = "SAY: Going\nSTALL: 30", .backend = stdio(), .launcher = pid_launcher(scratch.path() / "pid")}),
      AGENTRY_OK);
  ASSERT_FALSE(codex.wait_for(AGENTRY_EVENT_MESSAGE_DELTA).empty());
  const long pid = read_pid(scratch.path() / "pid");
  ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
  const json::object finished = codex.wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "error");
  EXPECT_NE(std::string(finished.at("message").as_string()).find("killed by signal 9"), std::string::npos)
      << json::serialize(finished);
}

TEST_F(RealCodex, NoAppServerIsLeftBehind) {
  TempDir scratch;
  long pid = 0;
  {
    CodexInstance codex;
    ASSERT_EQ(codex.start({.prompt = "SAY: bye", .backend = stdio(), .launcher = pid_launcher(scratch.path() / "pid")}),
              AGENTRY_OK);
    EXPECT_EQ(codex.wait_finished().at("outcome"), "success");
    pid = read_pid(scratch.path() / "pid");
  }
  EXPECT_FALSE(process_alive(pid));  // reaped before FINISHED was sent
}

// A host that destroys a running instance (obligation 10) gets no FINISHED, and the
// app-server is gone by the time destroy() returns.
TEST_F(RealCodex, DestroyingARunningInstanceStopsItsAppServer) {
  TempDir scratch;
  CodexInstance codex;
  ASSERT_EQ(
      codex.start(
          {.prompt = "SAY: Going\nSTALL: 30", .backend = stdio(), .launcher = pid_launcher(scratch.path() / "pid")}),
      AGENTRY_OK);
  ASSERT_FALSE(codex.wait_for(AGENTRY_EVENT_MESSAGE_DELTA).empty());
  const long pid = read_pid(scratch.path() / "pid");
  codex.destroy();
  EXPECT_FALSE(process_alive(pid));
  EXPECT_TRUE(codex.events_of(AGENTRY_EVENT_FINISHED).empty());
}

TEST_F(RealCodex, WebSocketTransport) {
  AppServer server(binary_, *home_, AppServer::Kind::ws);
  CodexInstance codex;
  const auto begun = Clock::now();
  ASSERT_EQ(codex.start({.prompt = "SAY: over ws", .backend = {{"transport", "ws"}, {"url", server.url()}}}),
            AGENTRY_OK);
  const json::object finished = codex.wait_finished();
  std::cout << "[ measure ] ws text turn through the plugin (connect..FINISHED): " << ms_since(begun) << " ms\n";
  EXPECT_EQ(finished.at("outcome"), "success") << json::serialize(finished);
  EXPECT_EQ(codex.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED).at(0).payload.at("text"), "over ws");
  EXPECT_TRUE(process_alive(server.pid()));  // not ours to stop
}

TEST_F(RealCodex, UnixSocketTransportWithApproval) {
  AppServer server(binary_, *home_, AppServer::Kind::uds);
  CodexInstance codex;
  ASSERT_EQ(
      codex.start({.prompt = "SHELL: touch uds.txt\nSAY: done",
                   .backend = {{"transport", "uds"}, {"socket", server.socket()}, {"approvalPolicy", "untrusted"}}}),
      AGENTRY_OK);
  const json::object ask = codex.wait_for(AGENTRY_EVENT_APPROVAL_REQUEST);
  ASSERT_FALSE(ask.empty());
  ASSERT_EQ(codex.send_input(AGENTRY_INPUT_APPROVAL, json::serialize(json::object{{"approvalId", ask.at("approvalId")},
                                                                                  {"decision", "approve"}})),
            AGENTRY_OK);
  EXPECT_EQ(codex.wait_finished().at("outcome"), "success");
  EXPECT_TRUE(std::filesystem::exists(codex.workspace().path() / "uds.txt"));
}

TEST_F(RealCodex, WebSocketResumeOnAServerThatAlreadyHasTheThread) {
  AppServer server(binary_, *home_, AppServer::Kind::ws);
  const json::object backend{{"transport", "ws"}, {"url", server.url()}};
  const std::string thread = finished_turn(backend, "SAY: one");
  ASSERT_FALSE(thread.empty());
  CodexInstance second;  // a new connection; the thread is still loaded in the server
  ASSERT_EQ(second.start({.prompt = "SAY: two", .backend = backend, .resume_token = thread}), AGENTRY_OK);
  const json::object finished = second.wait_finished();
  EXPECT_EQ(finished.at("outcome"), "success") << json::serialize(finished);
  EXPECT_EQ(finished.at("threadId").as_string(), thread);
}

// Several attempts on one instance (as the host resumes a session), against a warm
// server: each is connect + initialize + thread/resume + one turn + close.
TEST_F(RealCodex, ConsecutiveAttemptsResumeOverWebSocket) {
  AppServer server(binary_, *home_, AppServer::Kind::ws);
  const json::object backend{{"transport", "ws"}, {"url", server.url()}};
  CodexInstance codex;
  std::string thread;
  std::vector<double> times;
  for (int i = 0; i < 5; ++i) {
    const auto begun = Clock::now();
    ASSERT_EQ(codex.start({.prompt = "SAY: reply " + std::to_string(i), .backend = backend, .resume_token = thread}),
              AGENTRY_OK);
    const json::object finished = codex.wait_finished();
    times.push_back(ms_since(begun));
    ASSERT_EQ(finished.at("outcome"), "success") << json::serialize(finished);
    if (thread.empty()) thread = std::string(finished.at("threadId").as_string());
    EXPECT_EQ(finished.at("threadId").as_string(), thread);
  }
  EXPECT_EQ(codex.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED).size(), 5u);
  std::sort(times.begin() + 1, times.end());
  std::cout << "[ measure ] ws attempt (connect..FINISHED): first " << times[0] << " ms, median of the next 4 "
            << (times[2] + times[3]) / 2 << " ms\n";
}

TEST_F(RealCodex, InterruptOverWebSocket) {
  AppServer server(binary_, *home_, AppServer::Kind::ws);
  CodexInstance codex;
  ASSERT_EQ(codex.start({.prompt = "SAY: Long\nSTALL: 30", .backend = {{"transport", "ws"}, {"url", server.url()}}}),
            AGENTRY_OK);
  ASSERT_FALSE(codex.wait_for(AGENTRY_EVENT_MESSAGE_DELTA).empty());
  const auto begun = Clock::now();
  codex.interrupt("stop");
  EXPECT_EQ(codex.wait_finished(20s).at("outcome"), "interrupted");
  std::cout << "[ measure ] ws interrupt() -> FINISHED: " << ms_since(begun) << " ms\n";
}

// ext/detach.h: a daemon that stops lets go of a ws turn, and the next one takes it over.

// The "adoption" of the attempt's first NOTICE carrying one (waiting up to 30 s), or {}.
json::object adoption_of(const CodexInstance& codex) {
  const auto deadline = Clock::now() + 30s;
  do {
    for (const RecordedEvent& e : codex.events_of(AGENTRY_EVENT_NOTICE))
      if (const json::value* a = e.payload.if_contains("adoption")) return a->as_object();
    std::this_thread::sleep_for(5ms);
  } while (Clock::now() < deadline);
  ADD_FAILURE() << "no adoption notice";
  return {};
}

std::string completed_text(const CodexInstance& codex) {
  std::string text;
  for (const RecordedEvent& e : codex.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED)) text += e.payload.at("text").as_string();
  return text;
}

struct Detached {
  std::string thread, turn;
  json::value checkpoint;  // the last CHECKPOINT, as the host stores it for adopt()
};

// Starts a turn over ws, lets go of it once it streams, and says which it was.
Detached detach_mid_turn(const json::object& backend, const std::string& prompt, bool unrestricted = true) {
  CodexInstance codex;
  EXPECT_EQ(codex.start({.prompt = prompt, .backend = backend, .unrestricted = unrestricted}), AGENTRY_OK);
  EXPECT_FALSE(codex.wait_for(unrestricted ? AGENTRY_EVENT_MESSAGE_DELTA : AGENTRY_EVENT_APPROVAL_REQUEST).empty());
  EXPECT_EQ(codex.detach("agentry is shutting down"), AGENTRY_OK);
  const json::object finished = codex.wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "detached") << json::serialize(finished);
  EXPECT_EQ(finished.at("transportType"), "ws");
  const auto checkpoints = codex.events_of(AGENTRY_EVENT_CHECKPOINT);
  EXPECT_FALSE(checkpoints.empty());
  Detached out{std::string(finished.at("threadId").as_string()), std::string(finished.at("turnId").as_string()),
               checkpoints.empty() ? json::value() : json::value(checkpoints.back().payload)};
  EXPECT_EQ(out.checkpoint.at("turnId").as_string(), out.turn) << "the turn is checkpointed for whoever adopts it";
  return out;
}

TEST_F(RealCodex, DetachedTurnGoesOnAndIsReadopted) {
  AppServer server(binary_, *home_, AppServer::Kind::ws);
  const json::object backend{{"transport", "ws"}, {"url", server.url()}};
  const Detached first = detach_mid_turn(backend, "SAY: Before the restart.\nSTALL: 4\nSAY: After the restart.");
  CodexInstance second;
  const auto begun = Clock::now();
  ASSERT_EQ(second.adopt({.backend = backend, .resume_token = first.thread, .checkpoint = first.checkpoint}),
            AGENTRY_OK);
  const json::object adoption = adoption_of(second);
  std::cout << "[ measure ] adopt() -> readopted notice: " << ms_since(begun) << " ms\n";
  EXPECT_EQ(adoption.at("decision"), "readopted") << json::serialize(adoption);
  EXPECT_EQ(adoption.at("remoteStatus"), "active");
  EXPECT_EQ(adoption.at("transportType"), "ws");
  const json::object finished = second.wait_finished();
  EXPECT_EQ(finished.at("outcome"), "success") << json::serialize(finished);
  EXPECT_EQ(finished.at("turnId").as_string(), first.turn);
  EXPECT_NE(completed_text(second).find("After the restart."), std::string::npos) << completed_text(second);
  EXPECT_EQ(model_calls(), 1u) << "adopting must not start another turn";
}

TEST_F(RealCodex, ATurnThatEndedWhileDetachedIsImported) {
  AppServer server(binary_, *home_, AppServer::Kind::ws);
  const json::object backend{{"transport", "ws"}, {"url", server.url()}};
  const Detached first = detach_mid_turn(backend, "SAY: Almost.\nSTALL: 1\nSAY: Done meanwhile.");
  std::this_thread::sleep_for(3s);  // the turn ends in the server with nobody connected
  CodexInstance second;
  ASSERT_EQ(second.adopt({.backend = backend, .resume_token = first.thread, .checkpoint = first.checkpoint}),
            AGENTRY_OK);
  const json::object finished = second.wait_finished();
  const json::object adoption = adoption_of(second);
  EXPECT_EQ(adoption.at("decision"), "imported") << json::serialize(adoption);
  EXPECT_EQ(adoption.at("remoteStatus"), "idle");
  EXPECT_EQ(finished.at("outcome"), "success") << json::serialize(finished);
  EXPECT_EQ(finished.at("turnId").as_string(), first.turn);
  EXPECT_NE(completed_text(second).find("Done meanwhile."), std::string::npos) << completed_text(second);
  EXPECT_EQ(model_calls(), 1u);
}

// The daemon died between turn/start and its answer: no turn was checkpointed, and the
// turn still running is the attempt's. Once found, it is checkpointed for the next time.
TEST_F(RealCodex, ARunningTurnWithoutACheckpointIsReadoptedAndCheckpointed) {
  AppServer server(binary_, *home_, AppServer::Kind::ws);
  const json::object backend{{"transport", "ws"}, {"url", server.url()}};
  const Detached first = detach_mid_turn(backend, "SAY: Going.\nSTALL: 3\nSAY: Gone.");
  CodexInstance second;
  ASSERT_EQ(second.adopt({.prompt = "SAY: must not be sent",
                          .backend = backend,
                          .resume_token = first.thread,
                          .checkpoint = json::object{{"resumeToken", first.thread}}}),
            AGENTRY_OK);
  EXPECT_EQ(adoption_of(second).at("decision"), "readopted");
  EXPECT_EQ(second.wait_finished().at("outcome"), "success");
  const auto checkpoints = second.events_of(AGENTRY_EVENT_CHECKPOINT);
  ASSERT_EQ(checkpoints.size(), 1u);
  EXPECT_EQ(checkpoints[0].payload.at("turnId").as_string(), first.turn);
  EXPECT_EQ(model_calls(), 1u);
}

// The daemon died after opening an attempt but before codex confirmed its turn: the
// thread's last turn is an earlier attempt's, and this attempt's prompt was never sent.
TEST_F(RealCodex, AnAttemptWhoseTurnNeverStartedSendsItsPromptNow) {
  AppServer server(binary_, *home_, AppServer::Kind::ws);
  const json::object backend{{"transport", "ws"}, {"url", server.url()}};
  const std::string thread = finished_turn(backend, "SAY: The earlier turn.");
  ASSERT_FALSE(thread.empty());
  CodexInstance codex;
  ASSERT_EQ(codex.adopt({.prompt = "SAY: The follow-up, sent late.",
                         .backend = backend,
                         .resume_token = thread,
                         .checkpoint = json::object{{"resumeToken", thread}}}),
            AGENTRY_OK);
  const json::object finished = codex.wait_finished();
  const json::object adoption = adoption_of(codex);
  EXPECT_EQ(adoption.at("decision"), "started") << json::serialize(adoption);
  EXPECT_EQ(adoption.at("reason"), "turn_not_started");
  EXPECT_EQ(finished.at("outcome"), "success") << json::serialize(finished);
  EXPECT_EQ(completed_text(codex), "The follow-up, sent late.") << "the earlier turn is not imported again";
  EXPECT_EQ(model_calls(), 2u);
  EXPECT_EQ(codex.events_of(AGENTRY_EVENT_CHECKPOINT).back().payload.at("turnId"), finished.at("turnId"));
}

// codex asks a pending approval again of whoever resumes the thread, so a turn waiting
// on one can be let go of, and answered after the takeover.
TEST_F(RealCodex, AnApprovalPendingAtDetachIsAskedAgainAfterTheTakeOver) {
  AppServer server(binary_, *home_, AppServer::Kind::ws);
  const json::object backend{{"transport", "ws"}, {"url", server.url()}, {"approvalPolicy", "untrusted"}};
  const Detached first = detach_mid_turn(backend, "SHELL: touch approved.txt\nSAY: ran it", false);
  CodexInstance second;
  ASSERT_EQ(second.adopt({.backend = backend, .resume_token = first.thread, .checkpoint = first.checkpoint}),
            AGENTRY_OK);
  const json::object ask = second.wait_for(AGENTRY_EVENT_APPROVAL_REQUEST);
  ASSERT_FALSE(ask.empty());
  EXPECT_EQ(adoption_of(second).at("decision"), "readopted");
  ASSERT_EQ(second.send_input(AGENTRY_INPUT_APPROVAL,
                              json::serialize(json::object{{"approvalId", ask.at("approvalId")}, {"decision", "approve"}})),
            AGENTRY_OK);
  EXPECT_EQ(second.wait_finished().at("outcome"), "success");
  EXPECT_EQ(model_calls(), 2u) << "the command's result went back to the model in the same turn";
}

// An abort that arrives while the takeover is still connecting stops the remote turn.
TEST_F(RealCodex, InterruptDuringTheTakeOverStopsTheRemoteTurn) {
  AppServer server(binary_, *home_, AppServer::Kind::ws);
  const json::object backend{{"transport", "ws"}, {"url", server.url()}};
  const Detached first = detach_mid_turn(backend, "SAY: Working.\nSTALL: 60");
  {
    CodexInstance second;
    ASSERT_EQ(second.adopt({.backend = backend, .resume_token = first.thread, .checkpoint = first.checkpoint}),
              AGENTRY_OK);
    second.interrupt("aborted by the user");
    const json::object finished = second.wait_finished(20s);
    EXPECT_EQ(finished.at("outcome"), "interrupted") << json::serialize(finished);
    EXPECT_EQ(std::string(finished.at("message").as_string()).find("did not confirm"), std::string::npos)
        << json::serialize(finished);
    EXPECT_EQ(adoption_of(second).at("decision"), "readopted") << "the adoption is reported first";
  }
  CodexInstance third;  // how codex itself saw the turn end
  ASSERT_EQ(third.adopt({.backend = backend, .resume_token = first.thread, .checkpoint = first.checkpoint}), AGENTRY_OK);
  EXPECT_EQ(third.wait_finished(20s).at("outcome"), "interrupted");
  EXPECT_EQ(adoption_of(third).at("decision"), "imported");
}

TEST_F(RealCodex, AdoptingAnUnknownThreadIsFinalized) {
  AppServer server(binary_, *home_, AppServer::Kind::ws);
  CodexInstance codex;
  ASSERT_EQ(codex.adopt({.backend = {{"transport", "ws"}, {"url", server.url()}},
                         .resume_token = "019a0000-0000-7000-8000-000000000000"}),
            AGENTRY_OK);
  const json::object finished = codex.wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "error");
  const json::object adoption = adoption_of(codex);
  EXPECT_EQ(adoption.at("decision"), "finalized") << json::serialize(adoption);
  EXPECT_EQ(adoption.at("reason"), "thread_read_failed");
}

TEST_F(RealCodex, StdioTurnsCannotBeDetachedOrAdopted) {
  CodexInstance codex;
  ASSERT_EQ(codex.start({.prompt = "SAY: Mine.\nSTALL: 30", .backend = stdio()}), AGENTRY_OK);
  ASSERT_FALSE(codex.wait_for(AGENTRY_EVENT_MESSAGE_DELTA).empty());
  EXPECT_EQ(codex.detach(), AGENTRY_ERR_UNSUPPORTED) << "the app-server is our child: it cannot outlive us";
  codex.interrupt("stop");
  EXPECT_EQ(codex.wait_finished(20s).at("outcome"), "interrupted");
  CodexInstance other;
  EXPECT_EQ(other.adopt({.backend = stdio(), .resume_token = "019a0000-0000-7000-8000-000000000000"}),
            AGENTRY_ERR_UNSUPPORTED);
}

}  // namespace
}  // namespace agentry::test

namespace agentry::test {
namespace {

// Failures before codex is reached: no binary needed.

TEST(CodexPlugin, MissingBinaryIsRefusedAtStart) {
  CodexInstance codex;
  EXPECT_EQ(codex.start({.prompt = "SAY: x", .backend = {{"command", "/nonexistent/codex"}}}),
            AGENTRY_ERR_INVALID_ARGUMENT);
  bool logged = false;
  for (const std::string& line : codex.host().logs()) logged |= line.find("/nonexistent/codex") != std::string::npos;
  EXPECT_TRUE(logged);
}

TEST(CodexPlugin, UnreachableServerEndsWithAClearError) {
  CodexInstance codex;
  ASSERT_EQ(codex.start({.prompt = "SAY: x", .backend = {{"transport", "ws"}, {"url", "ws://127.0.0.1:1"}}}),
            AGENTRY_OK);
  const json::object finished = codex.wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "error");
  EXPECT_NE(
      std::string(finished.at("message").as_string()).find("cannot connect to codex app-server at ws://127.0.0.1:1"),
      std::string::npos)
      << json::serialize(finished);
}

TEST(CodexPlugin, AdoptingFromAGoneServerIsFinalized) {
  CodexInstance codex;
  ASSERT_EQ(codex.adopt({.backend = {{"transport", "ws"}, {"url", "ws://127.0.0.1:1"}}, .resume_token = "thread-1"}),
            AGENTRY_OK);
  EXPECT_EQ(codex.wait_finished(20s).at("outcome"), "error");
  const json::object adoption = adoption_of(codex);
  EXPECT_EQ(adoption.at("decision"), "finalized") << json::serialize(adoption);
  EXPECT_EQ(adoption.at("reason"), "remote_unreachable");
  EXPECT_TRUE(adoption.contains("error"));
}

TEST(CodexPlugin, AdoptingNeedsTheThreadId) {
  CodexInstance codex;
  EXPECT_EQ(codex.adopt({.backend = {{"transport", "ws"}, {"url", "ws://127.0.0.1:1"}}}), AGENTRY_ERR_INVALID_ARGUMENT);
}

TEST(CodexPlugin, AServerThatIsNotAWebSocketIsReported) {
  MockModel http;  // plain HTTP: answers the Upgrade request without 101
  const std::string url = "ws://127.0.0.1:" + std::to_string(http.port());
  CodexInstance codex;
  ASSERT_EQ(codex.start({.prompt = "SAY: x", .backend = {{"transport", "ws"}, {"url", url}}}), AGENTRY_OK);
  const json::object finished = codex.wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "error");
  EXPECT_NE(std::string(finished.at("message").as_string()).find("WebSocket handshake refused"), std::string::npos)
      << json::serialize(finished);
}

}  // namespace
}  // namespace agentry::test
