// The plugin's process handling against small shell stand-ins for claude: the failure
// paths the real binary cannot be made to show on demand (dying mid-turn, ignoring an
// interrupt, hanging past timeoutSec), plus the plain exit path. Needs no Claude install.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "live_fixture.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

constexpr const char* kInit = R"(echo '{"type":"system","subtype":"init","session_id":"stand-in-1"}'; )";
// Answers every user line with a successful result, like claude does for a plain turn.
constexpr const char* kAnswerTurns =
    R"(while read -r line; do case "$line" in *'"type":"user"'*) echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","usage":{"input_tokens":1,"output_tokens":1}}';; esac; done)";

class ClaudeStandIn : public ::testing::Test {
 protected:
  TempDir home_;  // first: claude_ uses it
  ClaudeInstance claude_{"/nonexistent/claude", "http://127.0.0.1:9", home_.path()};

  Turn shell(std::string script) {
    Turn turn("hello");
    turn.command = {"/bin/sh", "-c", std::move(script)};
    return turn;
  }
};

TEST_F(ClaudeStandIn, MissingBinaryEndsWithAnError) {
  ASSERT_EQ(claude_.start(Turn("SAY: hi")), AGENTRY_OK);
  const json::object finished = claude_.wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "error");
  EXPECT_NE(std::string(finished.at("message").as_string()).find("'/nonexistent/claude' not found"), std::string::npos)
      << finished;
}

TEST_F(ClaudeStandIn, TurnAnsweredThenStdinClosedEndsInSuccess) {
  ASSERT_EQ(claude_.start(shell(std::string(kInit) + kAnswerTurns)), AGENTRY_OK);
  const json::object finished = claude_.wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "success") << claude_.dump();
  EXPECT_EQ(finished.at("exitCode"), 0) << "the stand-in exits when its stdin closes";
  EXPECT_EQ(claude_.events_of(AGENTRY_EVENT_CHECKPOINT).at(0).payload.at("resumeToken"), "stand-in-1");
  // A second attempt on the same instance.
  ASSERT_EQ(claude_.start(shell(std::string(kInit) + kAnswerTurns)), AGENTRY_OK);
  EXPECT_EQ(claude_.wait_finished(20s).at("outcome"), "success");
}

TEST_F(ClaudeStandIn, ChildGetsTheFlagsTheWorkspaceAndTheTrafficOffEnvironment) {
  // sh -c 'script' a b c: the plugin's flags arrive as $0 $1 ..., so "$0 $*" is the argv tail.
  ASSERT_EQ(claude_.start(shell(std::string(R"(echo "$0 $*" > args.txt; pwd > cwd.txt; env > env.txt; )") + kInit +
                                kAnswerTurns)),
            AGENTRY_OK);
  ASSERT_EQ(claude_.wait_finished(20s).at("outcome"), "success") << claude_.dump();
  const std::string args = read_file(claude_.workspace() / "args.txt");
  EXPECT_NE(args.find("-p --input-format stream-json --output-format stream-json --verbose --include-partial-messages "
                      "--permission-prompt-tool stdio"),
            std::string::npos)
      << args;
  EXPECT_NE(args.find("--session-id "), std::string::npos) << args;
  EXPECT_EQ(read_file(claude_.workspace() / "cwd.txt"), claude_.workspace().string() + "\n");
  const std::string env = read_file(claude_.workspace() / "env.txt");
  for (const char* expected : {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1\n", "DISABLE_TELEMETRY=1\n",
                               "DISABLE_AUTOUPDATER=1\n", "DISABLE_ERROR_REPORTING=1\n", "AGENTRY_RUN_ID=run-claude\n",
                               "ANTHROPIC_BASE_URL=http://127.0.0.1:9\n"})
    EXPECT_NE(env.find(expected), std::string::npos) << expected;
}

TEST_F(ClaudeStandIn, DeathBeforeTheResultIsAnErrorWithStderr) {
  ASSERT_EQ(claude_.start(shell(std::string(kInit) + "echo 'fatal: out of tokens' >&2; exit 3")), AGENTRY_OK);
  const json::object finished = claude_.wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "error");
  const std::string message(finished.at("message").as_string());
  EXPECT_NE(message.find("claude exited with code 3 before its turn ended"), std::string::npos) << message;
  EXPECT_NE(message.find("fatal: out of tokens"), std::string::npos) << message;
  EXPECT_EQ(finished.at("exitCode"), 3);
}

TEST_F(ClaudeStandIn, UnreadableAndUnknownLinesAreShownNotDropped) {
  ASSERT_EQ(claude_.start(shell(std::string(kInit) + R"(echo 'not json at all'; echo '{"type":"novel_thing","n":1}'; )" +
                                kAnswerTurns)),
            AGENTRY_OK);
  EXPECT_EQ(claude_.wait_finished(20s).at("outcome"), "success");
  EXPECT_TRUE(claude_.wait_for(AGENTRY_EVENT_NOTICE, "not json at all", 0s)) << claude_.dump();
  EXPECT_TRUE(claude_.wait_for(AGENTRY_EVENT_NOTICE, "novel_thing", 0s)) << claude_.dump();
}

TEST_F(ClaudeStandIn, InterruptIgnoredIsEnforcedAfterTheGrace) {
  Turn turn = shell(std::string("trap '' TERM; ") + kInit + "sleep 100");
  turn.interrupt_grace_ms = 300;
  ASSERT_EQ(claude_.start(turn), AGENTRY_OK);
  ASSERT_TRUE(claude_.wait_for(AGENTRY_EVENT_CHECKPOINT, "", 20s));
  const auto begun = std::chrono::steady_clock::now();
  EXPECT_EQ(claude_.interrupt("stop now"), AGENTRY_OK);
  const json::object finished = claude_.wait_finished(30s);
  EXPECT_EQ(finished.at("outcome"), "interrupted") << claude_.dump();
  EXPECT_NE(std::string(finished.at("message").as_string()).find("did not stop within 300 ms"), std::string::npos);
  EXPECT_EQ(finished.at("signal"), 9) << "SIGTERM is ignored here, so SIGKILL follows";
  EXPECT_LT(std::chrono::steady_clock::now() - begun, 10s);
  EXPECT_FALSE(process_alive(claude_.child_pid()));
}

TEST_F(ClaudeStandIn, TimeoutEndsTheAttemptInError) {
  Turn turn = shell(std::string(kInit) + "sleep 100");
  turn.timeout_sec = 1;
  turn.interrupt_grace_ms = 200;
  ASSERT_EQ(claude_.start(turn), AGENTRY_OK);
  const json::object finished = claude_.wait_finished(30s);
  EXPECT_EQ(finished.at("outcome"), "error") << claude_.dump();
  EXPECT_EQ(finished.at("message"), "timed out after 1 s");
}

TEST_F(ClaudeStandIn, DestroyWhileRunningStopsTheProcess) {
  ASSERT_EQ(claude_.start(shell(std::string(kInit) + "sleep 100")), AGENTRY_OK);
  ASSERT_TRUE(claude_.wait_for(AGENTRY_EVENT_CHECKPOINT, "", 20s));
  const long pid = claude_.child_pid();
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(process_alive(pid));
  claude_.destroy();  // joins the worker: the process is gone and FINISHED was emitted
  EXPECT_FALSE(process_alive(pid));
  EXPECT_EQ(claude_.host().finished_count(), 1);
}

TEST_F(ClaudeStandIn, InputOutsideARunningAttemptIsRefused) {
  EXPECT_EQ(claude_.send_message("hello"), AGENTRY_ERR_INVALID_STATE);
  ASSERT_EQ(claude_.start(shell(std::string(kInit) + kAnswerTurns)), AGENTRY_OK);
  EXPECT_EQ(claude_.wait_finished(20s).at("outcome"), "success");
  EXPECT_EQ(claude_.send_message("late"), AGENTRY_ERR_INVALID_STATE);
  EXPECT_EQ(claude_.answer("nope", "approve"), AGENTRY_ERR_INVALID_STATE);
}

}  // namespace
}  // namespace agentry::test
