// The built cursor plugin through its C ABI against a stand-in for cursor-agent that replays
// the documented stream (tests/fixtures/cursor/fake_cursor_agent.py; the real CLI is not
// installable here): flags, resume by chat id, follow-ups as turns, commands with and
// without --force, interrupt, a CLI that lingers after its result, and failures.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "agentry/plugin/events.h"
#include "plugin_instance.hpp"
#include "support/source_tree.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

const agentry_backend_factory_t* cursor_factory() {
  static const agentry_backend_factory_t* factory = load_backend_factory("AGENTRY_CURSOR_PLUGIN");
  return factory;
}

class CursorPlugin : public ::testing::Test {
 protected:
  TempDir logs_;
  SubprocessInstance cursor_{cursor_factory(), "cursor"};

  std::string config(bool unrestricted = false) {
    return config_json(
        json::object{{"command", strings({"python3", source_file("tests/fixtures/cursor/fake_cursor_agent.py")})},
                     {"env", json::object{{"FAKE_CURSOR_ARGV_LOG", (logs_.path() / "argv.jsonl").string()}}},
                     {"interruptGraceMs", 1000}},
        json::object{{"unrestricted", unrestricted}, {"model", "auto"}});
  }
  std::vector<json::array> argvs() {
    std::vector<json::array> out;
    std::ifstream in(logs_.path() / "argv.jsonl");
    std::string line;
    while (std::getline(in, line)) out.push_back(json::parse(line).as_array());
    return out;
  }
  std::string token() {
    auto checkpoints = cursor_.events_of(AGENTRY_EVENT_CHECKPOINT);
    return checkpoints.empty() ? "" : std::string(checkpoints.back().payload.at("resumeToken").as_string());
  }
};

TEST_F(CursorPlugin, ATurnReplaysIntoEventsAndItsChatIsTheResumeToken) {
  ASSERT_EQ(cursor_.start(config(), with_prompt("fix add")), AGENTRY_OK);
  const json::object finished = cursor_.wait_finished(30s);
  EXPECT_EQ(finished.at("outcome"), "success") << finished;
  EXPECT_EQ(cursor_.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED).size(), 2u);
  EXPECT_EQ(cursor_.events_of(AGENTRY_EVENT_TOOL_COMPLETED).size(), 3u);
  const std::string chat = token();
  ASSERT_FALSE(chat.empty());
  const auto first = argvs().at(0);
  for (const char* flag : {"-p", "--output-format", "stream-json", "--stream-partial-output", "--trust", "--model"})
    EXPECT_NE(std::find(first.begin(), first.end(), json::value(flag)), first.end()) << flag;
  EXPECT_EQ(std::find(first.begin(), first.end(), json::value("--force")), first.end()) << "not unrestricted";
  EXPECT_EQ(first.back(), "fix add");

  ASSERT_EQ(cursor_.start(config(), with_resume_token(chat)), AGENTRY_OK);
  EXPECT_EQ(cursor_.wait_finished(30s).at("outcome"), "success");
  const auto second = argvs().at(1);
  EXPECT_NE(std::find(second.begin(), second.end(), json::value("--resume=" + chat)), second.end());
  EXPECT_EQ(token(), chat);
}

TEST_F(CursorPlugin, CommandsRunOnlyForAnUnrestrictedRun) {
  ASSERT_EQ(cursor_.start(config(false), with_prompt("RUN: touch refused.txt")), AGENTRY_OK);
  EXPECT_EQ(cursor_.wait_finished(30s).at("outcome"), "success");
  EXPECT_FALSE(std::filesystem::exists(cursor_.workspace().path() / "refused.txt"));
  EXPECT_EQ(cursor_.events_of(AGENTRY_EVENT_TOOL_COMPLETED).at(0).payload.at("status"), "declined");

  ASSERT_EQ(cursor_.start(config(true), with_prompt("RUN: touch made.txt")), AGENTRY_OK);
  EXPECT_EQ(cursor_.wait_finished(30s).at("outcome"), "success");
  EXPECT_TRUE(std::filesystem::exists(cursor_.workspace().path() / "made.txt"));
  const auto last = argvs().back();
  EXPECT_NE(std::find(last.begin(), last.end(), json::value("--force")), last.end());
}

TEST_F(CursorPlugin, AFollowUpIsTheNextTurnOfTheSameChat) {
  ASSERT_EQ(cursor_.start(config(true), with_prompt("RUN: sleep 1")), AGENTRY_OK);
  ASSERT_EQ(cursor_.send_input(AGENTRY_INPUT_MESSAGE, R"({"text":"RUN: echo again > again.txt"})"), AGENTRY_OK);
  EXPECT_EQ(cursor_.wait_finished(30s).at("outcome"), "success");
  EXPECT_TRUE(std::filesystem::exists(cursor_.workspace().path() / "again.txt"));
  const auto runs = argvs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(std::find(runs[1].begin(), runs[1].end(), json::value("--resume=" + token())), runs[1].end());
  EXPECT_EQ(cursor_.send_input(AGENTRY_INPUT_MESSAGE, R"({"text":"late"})"), AGENTRY_ERR_INVALID_STATE);
  EXPECT_EQ(cursor_.send_input(AGENTRY_INPUT_APPROVAL, R"({"approvalId":"a","decision":"approve"})"),
            AGENTRY_ERR_INVALID_STATE);
}

TEST_F(CursorPlugin, InterruptStopsTheTurnsProcessGroup) {
  ASSERT_EQ(cursor_.start(config(), with_prompt("HANG")), AGENTRY_OK);
  ASSERT_TRUE(cursor_.wait_for_text(AGENTRY_EVENT_CHECKPOINT, "resumeToken", 30s));
  ASSERT_EQ(cursor_.interrupt("stop"), AGENTRY_OK);
  EXPECT_EQ(cursor_.wait_finished(30s).at("outcome"), "interrupted");
}

TEST_F(CursorPlugin, ACliThatLingersAfterItsResultIsStoppedAndTheTurnStillSucceeds) {
  const auto started = std::chrono::steady_clock::now();
  ASSERT_EQ(cursor_.start(config(), with_prompt("LINGER")), AGENTRY_OK);
  EXPECT_EQ(cursor_.wait_finished(30s).at("outcome"), "success");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 15s);
}

TEST_F(CursorPlugin, FailuresEndInAnErrorThatSaysWhy) {
  ASSERT_EQ(cursor_.start(config(), with_prompt("FAIL")), AGENTRY_OK);
  json::object finished = cursor_.wait_finished(30s);
  EXPECT_EQ(finished.at("outcome"), "error");
  EXPECT_NE(std::string(finished.at("message").as_string()).find("Cannot use this model"), std::string::npos) << finished;

  ASSERT_EQ(cursor_.start(config_json(json::object{{"binary", "/nonexistent/cursor-agent"}})), AGENTRY_OK);
  finished = cursor_.wait_finished(30s);
  EXPECT_NE(std::string(finished.at("message").as_string()).find("Cursor CLI installer"), std::string::npos) << finished;
  EXPECT_EQ(cursor_.start(config_json(json::object{{"bogus", true}})), AGENTRY_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace agentry::test
