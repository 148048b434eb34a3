// The built acp plugin through its C ABI against a real child that speaks the Agent Client
// Protocol (tests/fixtures/acp/fake_acp_agent.py): streamed text and thoughts, plans, tool
// calls behind approvals, interrupt, follow-ups, resume by session/load and session/resume,
// authentication, and an agent that dies mid-turn.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "agentry/plugin/events.h"
#include "agentry/plugin/ext/ask.h"
#include "plugin_instance.hpp"
#include "support/source_tree.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

const agentry_backend_factory_t* acp_factory() {
  static const agentry_backend_factory_t* factory = load_backend_factory("AGENTRY_ACP_PLUGIN");
  return factory;
}

std::string fake_agent() { return test::source_file("tests/fixtures/acp/fake_acp_agent.py"); }

class AcpPlugin : public ::testing::Test {
 protected:
  TempDir state_;
  SubprocessInstance acp_{acp_factory(), "acp"};

  // The fake agent with its state in this test's directory, plus `fields` in backendConfig.acp.
  std::string config(json::object env = {}, json::object top = {}, json::object fields = {}) {
    env["FAKE_ACP_STATE_DIR"] = state_.path().string();
    fields["command"] = strings({"python3", fake_agent()});
    fields["env"] = std::move(env);
    fields["interruptGraceMs"] = 2000;
    return config_json(std::move(fields), std::move(top));
  }
  std::string unrestricted(json::object env = {}) { return config(std::move(env), json::object{{"unrestricted", true}}); }

  std::string texts(uint16_t type) const {
    std::string out;
    for (const RecordedEvent& e : acp_.events_of(type)) out += std::string(e.payload.at("text").as_string()) + "|";
    return out;
  }
  std::string resume_token() const {
    const auto checkpoints = acp_.events_of(AGENTRY_EVENT_CHECKPOINT);
    return checkpoints.empty() ? std::string() : std::string(checkpoints.back().payload.at("resumeToken").as_string());
  }
  std::string first_approval_id() {
    EXPECT_TRUE(acp_.wait_for_text(AGENTRY_EVENT_APPROVAL_REQUEST, "approvalId", 30s));
    const auto approvals = acp_.events_of(AGENTRY_EVENT_APPROVAL_REQUEST);
    return approvals.empty() ? std::string() : std::string(approvals.back().payload.at("approvalId").as_string());
  }
};

TEST_F(AcpPlugin, TextThoughtsAndPlanStreamAsDeltasAndCompleteWhole) {
  ASSERT_EQ(acp_.start(config(), with_prompt("THINK: let me see\nSAY: hello there\nPLAN: read; write")), AGENTRY_OK);
  const json::object finished = acp_.wait_finished(30s);
  EXPECT_EQ(finished.at("outcome"), "success") << finished;
  ASSERT_TRUE(finished.contains("exitCode")) << finished;
  EXPECT_EQ(finished.at("exitCode"), 0) << "the agent exits when its stdin closes";
  EXPECT_EQ(texts(AGENTRY_EVENT_MESSAGE_DELTA), "hel|lo |there|");
  EXPECT_EQ(texts(AGENTRY_EVENT_MESSAGE_COMPLETED), "hello there|");
  EXPECT_EQ(texts(AGENTRY_EVENT_REASONING), "let me see|");
  for (const RecordedEvent& delta : acp_.events_of(AGENTRY_EVENT_MESSAGE_DELTA))
    EXPECT_EQ(delta.flags & AGENTRY_EVENT_FLAG_EPHEMERAL, AGENTRY_EVENT_FLAG_EPHEMERAL);
  const auto plans = acp_.events_of(AGENTRY_EVENT_PLAN);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(json::serialize(plans[0].payload.at("steps")),
            R"([{"step":"read","status":"in_progress"},{"step":"write","status":"pending"}])");
  EXPECT_EQ(resume_token().rfind("fake-", 0), 0u) << "the ACP session id is the resume token";
  // The agent got the run's workspace as the session's cwd.
  std::ifstream cwd(state_.path() / (resume_token() + ".cwd"));
  std::string line;
  std::getline(cwd, line);
  EXPECT_EQ(line, acp_.workspace().path().string());
}

TEST_F(AcpPlugin, AToolCallWaitsForItsApprovalThenRunsInTheWorkspace) {
  ASSERT_EQ(acp_.start(config(), with_prompt("RUN: echo made > proof.txt; echo done")), AGENTRY_OK);
  const std::string approval = first_approval_id();
  const auto request = acp_.events_of(AGENTRY_EVENT_APPROVAL_REQUEST).at(0).payload;
  EXPECT_EQ(request.at("kind"), "command");
  EXPECT_EQ(request.at("summary"), "echo made > proof.txt; echo done");
  EXPECT_EQ(acp_.events_of(AGENTRY_EVENT_TOOL_STARTED).at(0).payload.at("command"), "echo made > proof.txt; echo done");
  EXPECT_FALSE(std::filesystem::exists(acp_.workspace().path() / "proof.txt")) << "nothing runs before the answer";

  EXPECT_EQ(acp_.send_input(AGENTRY_INPUT_APPROVAL, R"({"approvalId":"nope","decision":"approve"})"),
            AGENTRY_ERR_NOT_FOUND);
  ASSERT_EQ(acp_.send_input(AGENTRY_INPUT_APPROVAL,
                            json::serialize(json::object{{"approvalId", approval}, {"decision", "approve"}})),
            AGENTRY_OK);
  EXPECT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  EXPECT_TRUE(std::filesystem::exists(acp_.workspace().path() / "proof.txt"));
  const auto completed = acp_.events_of(AGENTRY_EVENT_TOOL_COMPLETED);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0].payload.at("status"), "completed");
  EXPECT_EQ(completed[0].payload.at("output"), "done\n");
}

TEST_F(AcpPlugin, ADeniedEditChangesNothingAndTheTurnGoesOn) {
  ASSERT_EQ(acp_.start(config(), with_prompt("EDIT: notes.txt=secret\nSAY: after")), AGENTRY_OK);
  const std::string approval = first_approval_id();
  EXPECT_EQ(acp_.events_of(AGENTRY_EVENT_APPROVAL_REQUEST).at(0).payload.at("kind"), "file_change");
  ASSERT_EQ(acp_.send_input(AGENTRY_INPUT_APPROVAL,
                            json::serialize(json::object{{"approvalId", approval}, {"decision", "deny"}})),
            AGENTRY_OK);
  EXPECT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  EXPECT_FALSE(std::filesystem::exists(acp_.workspace().path() / "notes.txt"));
  EXPECT_EQ(acp_.events_of(AGENTRY_EVENT_TOOL_COMPLETED).at(0).payload.at("status"), "failed");
  EXPECT_EQ(texts(AGENTRY_EVENT_MESSAGE_COMPLETED), "after|");
}

TEST_F(AcpPlugin, AnUnrestrictedRunIsNeverAskedAndItsEditsCarryTheirDiffPath) {
  ASSERT_EQ(acp_.start(unrestricted(), with_prompt("EDIT: notes.txt=hello")), AGENTRY_OK);
  EXPECT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  EXPECT_TRUE(acp_.events_of(AGENTRY_EVENT_APPROVAL_REQUEST).empty());
  const auto completed = acp_.events_of(AGENTRY_EVENT_TOOL_COMPLETED);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0].payload.at("changes").at(0).at("path").as_string(), (acp_.workspace().path() / "notes.txt").string());
  EXPECT_EQ(completed[0].payload.at("changes").at(0).at("kind"), "add");
}

TEST_F(AcpPlugin, InterruptCancelsTheTurnAndAWaitingApproval) {
  ASSERT_EQ(acp_.start(config(), with_prompt("RUN: touch never.txt")), AGENTRY_OK);
  const std::string approval = first_approval_id();
  ASSERT_EQ(acp_.interrupt("enough"), AGENTRY_OK);
  const json::object finished = acp_.wait_finished(30s);
  EXPECT_EQ(finished.at("outcome"), "interrupted") << finished;
  EXPECT_FALSE(std::filesystem::exists(acp_.workspace().path() / "never.txt"));
  EXPECT_EQ(acp_.events_of(AGENTRY_EVENT_TOOL_COMPLETED).at(0).payload.at("status"), "declined");
}

TEST_F(AcpPlugin, AnAgentThatIgnoresTheCancelIsStoppedAfterTheGrace) {
  // The agent says so once it ignores cancels: an interrupt before that line could still
  // end the turn between two of its directives.
  ASSERT_EQ(acp_.start(config(), with_prompt("IGNORE_CANCEL")), AGENTRY_OK);
  ASSERT_TRUE(acp_.wait_for_text(AGENTRY_EVENT_MESSAGE_DELTA, "ignoring cancel", 30s));
  const auto started = std::chrono::steady_clock::now();
  ASSERT_EQ(acp_.interrupt("stop"), AGENTRY_OK);
  const json::object finished = acp_.wait_finished(30s);
  EXPECT_EQ(finished.at("outcome"), "interrupted");
  EXPECT_NE(std::string(finished.at("message").as_string()).find("grace"), std::string::npos) << finished;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 15s);
  EXPECT_EQ(texts(AGENTRY_EVENT_MESSAGE_COMPLETED), "ignoring cancel|") << "the text so far is kept";
}

TEST_F(AcpPlugin, AFollowUpDuringATurnBecomesTheNextPrompt) {
  ASSERT_EQ(acp_.start(config(), with_prompt("SLEEP: 1\nSAY: first")), AGENTRY_OK);
  ASSERT_EQ(acp_.send_input(AGENTRY_INPUT_MESSAGE, R"({"text":"SAY: second"})"), AGENTRY_OK);
  EXPECT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  EXPECT_EQ(texts(AGENTRY_EVENT_MESSAGE_COMPLETED), "first|second|")
      << texts(AGENTRY_EVENT_MESSAGE_COMPLETED);
  EXPECT_EQ(acp_.send_input(AGENTRY_INPUT_MESSAGE, R"({"text":"late"})"), AGENTRY_ERR_INVALID_STATE);
}

TEST_F(AcpPlugin, AResumeLoadsTheSessionWithoutReplayingItAsNews) {
  const std::string env_config = config(json::object{{"FAKE_ACP_LOAD", "1"}});
  ASSERT_EQ(acp_.start(env_config, with_prompt("SAY: one")), AGENTRY_OK);
  ASSERT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  const std::string token = resume_token();
  ASSERT_FALSE(token.empty());

  ASSERT_EQ(acp_.start(env_config, with_resume_token(token)), AGENTRY_OK);  // prompt "hello"
  ASSERT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  EXPECT_EQ(resume_token(), token) << "the same session goes on";
  EXPECT_EQ(texts(AGENTRY_EVENT_MESSAGE_COMPLETED).find("replayed"), std::string::npos)
      << texts(AGENTRY_EVENT_MESSAGE_COMPLETED);

  StartOptions recall = with_resume_token(token);
  recall.prompt = "RECALL";
  ASSERT_EQ(acp_.start(env_config, recall), AGENTRY_OK);
  ASSERT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  EXPECT_NE(texts(AGENTRY_EVENT_MESSAGE_COMPLETED).find("earlier: SAY: one | hello|"), std::string::npos)
      << texts(AGENTRY_EVENT_MESSAGE_COMPLETED);
}

TEST_F(AcpPlugin, AResumePrefersSessionResumeAndSaysSoWhenItCannot) {
  ASSERT_EQ(acp_.start(config(json::object{{"FAKE_ACP_RESUME", "1"}}), with_prompt("SAY: one")), AGENTRY_OK);
  ASSERT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  const std::string token = resume_token();
  StartOptions recall = with_resume_token(token);
  recall.prompt = "RECALL";
  ASSERT_EQ(acp_.start(config(json::object{{"FAKE_ACP_RESUME", "1"}}), recall), AGENTRY_OK);
  ASSERT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  EXPECT_NE(texts(AGENTRY_EVENT_MESSAGE_COMPLETED).find("earlier: SAY: one|"), std::string::npos);

  // An agent that can do neither: a new session, and the timeline says why.
  ASSERT_EQ(acp_.start(config(), with_resume_token(token)), AGENTRY_OK);
  ASSERT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  EXPECT_TRUE(acp_.wait_for_text(AGENTRY_EVENT_NOTICE, "cannot resume a session", 1s));
  EXPECT_NE(resume_token(), token);
}

TEST_F(AcpPlugin, AuthenticationRequiredIsExplainedOrDoneWithTheConfiguredMethod) {
  ASSERT_EQ(acp_.start(config(json::object{{"FAKE_ACP_AUTH", "1"}})), AGENTRY_OK);
  json::object finished = acp_.wait_finished(30s);
  EXPECT_EQ(finished.at("outcome"), "error");
  EXPECT_NE(std::string(finished.at("message").as_string()).find("backendConfig.acp.authMethod"), std::string::npos)
      << finished;

  ASSERT_EQ(acp_.start(config(json::object{{"FAKE_ACP_AUTH", "1"}}, {}, json::object{{"authMethod", "key"}})),
            AGENTRY_OK);
  EXPECT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
}

TEST_F(AcpPlugin, AnAgentThatDiesMidTurnEndsInAnErrorQuotingItsStderr) {
  ASSERT_EQ(acp_.start(config(), with_prompt("SAY: partial\nCRASH")), AGENTRY_OK);
  const json::object finished = acp_.wait_finished(30s);
  EXPECT_EQ(finished.at("outcome"), "error");
  EXPECT_NE(std::string(finished.at("message").as_string()).find("crashing as asked"), std::string::npos) << finished;
  EXPECT_EQ(finished.at("exitCode"), 3);
}

TEST_F(AcpPlugin, BadConfigurationIsRefusedAtStartNamingTheField) {
  EXPECT_EQ(acp_.start(config_json(json::object{})), AGENTRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(acp_.start(config_json(json::object{{"command", "x"}, {"bogus", 1}})), AGENTRY_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(acp_.start(config_json(json::object{{"command", "x"}, {"mcpServers", json::array{json::object{{"name", "m"}}}}})),
            AGENTRY_ERR_INVALID_ARGUMENT);
  bool named = false;
  for (const std::string& line : acp_.host().logs()) named = named || line.find("mcpServers[0].command") != std::string::npos;
  EXPECT_TRUE(named);
  // A program that does not exist is an attempt that ends in an error, saying so.
  ASSERT_EQ(acp_.start(config_json(json::object{{"command", "/nonexistent/agent"}})), AGENTRY_OK);
  const json::object finished = acp_.wait_finished(30s);
  EXPECT_EQ(finished.at("outcome"), "error");
  EXPECT_NE(std::string(finished.at("message").as_string()).find("/nonexistent/agent"), std::string::npos) << finished;
}

// ext/ask.h: `question` about the run whose session is `token`, from a fresh instance.
json::object ask_request(const std::string& config_json, const std::string& workspace, const std::string& token,
                         const std::string& question) {
  return json::object{{"runId", "run-1"},
                      {"workspacePath", workspace},
                      {"config", json::parse(config_json)},
                      {"resumeToken", token},
                      {"question", question},
                      {"state", {{"status", "success"}}}};
}

std::string ask(SubprocessInstance& asker, const json::object& request) {
  const auto* table =
      static_cast<const agentry_backend_ask_t*>(asker.backend()->get_extension(asker.backend(), AGENTRY_EXT_ASK));
  EXPECT_NE(table, nullptr);
  if (table == nullptr) return {};
  EXPECT_EQ(table->ask(asker.backend(), "ask-1", json::serialize(request).c_str()), AGENTRY_OK);
  EXPECT_TRUE(asker.host().wait_for_answers(1, std::chrono::seconds(30)));
  const auto answers = asker.host().answers();
  return answers.empty() ? std::string() : json::serialize(answers.front().answer);
}

TEST_F(AcpPlugin, AQuestionIsAnsweredInAForkThatLeavesTheRunsSessionAlone) {
  const std::string forking = config(json::object{{"FAKE_ACP_FORK", "1"}, {"FAKE_ACP_LOAD", "1"}});
  ASSERT_EQ(acp_.start(forking, with_prompt("SAY: one")), AGENTRY_OK);
  ASSERT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  const std::string token = resume_token();

  SubprocessInstance asker{acp_factory(), "acp"};
  const std::string answer = ask(asker, ask_request(forking, acp_.workspace().path().string(), token, "RECALL"));
  EXPECT_NE(answer.find("earlier: SAY: one"), std::string::npos) << answer;
  EXPECT_NE(answer.find("\"answer\""), std::string::npos) << answer;
  EXPECT_TRUE(asker.host().events().empty()) << "a question writes nothing to the timeline";

  // The run's own session did not hear the question.
  StartOptions recall = with_resume_token(token);
  recall.prompt = "RECALL";
  ASSERT_EQ(acp_.start(forking, recall), AGENTRY_OK);
  ASSERT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  EXPECT_NE(texts(AGENTRY_EVENT_MESSAGE_COMPLETED).find("earlier: SAY: one|"), std::string::npos)
      << texts(AGENTRY_EVENT_MESSAGE_COMPLETED);
}

TEST_F(AcpPlugin, WithoutForkAQuestionIsAnsweredInANewSessionAndNeverRunsATool) {
  SubprocessInstance asker{acp_factory(), "acp"};
  const std::string answer = ask(asker, ask_request(config(), acp_.workspace().path().string(), "fake-gone",
                                                    "RUN: touch asked.txt"));
  EXPECT_NE(answer.find("\"answer\""), std::string::npos) << answer;
  EXPECT_FALSE(std::filesystem::exists(acp_.workspace().path() / "asked.txt")) << "tools are refused while answering";
}

TEST_F(AcpPlugin, McpServersReachTheAgentInItsOwnShape) {
  ASSERT_EQ(acp_.start(config({}, {}, json::object{{"mcpServers", json::array{json::object{
                                                                        {"name", "tools"},
                                                                        {"command", "/usr/bin/tools"},
                                                                        {"args", strings({"--stdio"})},
                                                                        {"env", json::object{{"TOKEN", "t"}}}}}}})),
            AGENTRY_OK);
  ASSERT_EQ(acp_.wait_finished(30s).at("outcome"), "success");
  std::ifstream file(state_.path() / (resume_token() + ".cwd"));
  std::string cwd, servers;
  std::getline(file, cwd);
  std::getline(file, servers);
  EXPECT_EQ(servers, R"([{"name": "tools", "command": "/usr/bin/tools", "args": ["--stdio"], "env": [{"name": "TOKEN", "value": "t"}]}])");
}

}  // namespace
}  // namespace agentry::test
