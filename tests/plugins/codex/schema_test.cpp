// The protocol is versioned with the binary: this checks that the method names and fields
// the plugin relies on exist in the schema that the pinned codex generates about itself.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <set>
#include <string>

#include "support/agent_binaries.hpp"
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

class CodexSchema : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::optional<fs::path> bin = codex_binary();
    if (!bin) return;
    dir_ = new TempDir();
    SpawnOptions options;
    options.argv = {bin->string(), "app-server", "generate-json-schema", "--out", (dir_->path() / "schema").string()};
    options.env = environment_with({{"CODEX_HOME", (dir_->path() / "home").string()}});
    fs::create_directories(dir_->path() / "home");
    options.new_process_group = true;
    const pid_t pid = spawn_process(options);
    generated_ = wait_for_exit(pid, 60000ms) == 0;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (dir_ == nullptr) GTEST_SKIP() << not_installed_banner("codex");
    ASSERT_TRUE(generated_) << "codex app-server generate-json-schema failed";
  }

  static json::object load(const std::string& relative) {
    return json::parse(read_file(dir_->path() / "schema" / relative)).as_object();
  }

  // The "method" enum values of a oneOf message union (ClientRequest.json, ...).
  static std::set<std::string> methods(const std::string& file) {
    std::set<std::string> out;
    const json::object schema = load(file);  // kept alive: a range-for over a temporary's member dangles
    for (const json::value& variant : schema.at("oneOf").as_array())
      for (const json::value& name : variant.at("properties").at("method").at("enum").as_array())
        out.emplace(name.as_string());
    return out;
  }

  static std::set<std::string> properties(const json::object& schema) {
    std::set<std::string> out;
    for (const auto& field : schema.at("properties").as_object()) out.emplace(field.key());
    return out;
  }

  // The string values a definition allows (an enum, or a oneOf of enums and objects).
  static std::set<std::string> values(const json::value& definition) {
    std::set<std::string> out;
    if (const json::value* e = definition.as_object().if_contains("enum"))
      for (const json::value& v : e->as_array()) out.emplace(v.as_string());
    if (const json::value* one = definition.as_object().if_contains("oneOf"))
      for (const json::value& v : one->as_array()) {
        for (const std::string& s : values(v)) out.insert(s);
        if (const json::value* p = v.as_object().if_contains("properties"))
          for (const auto& f : p->as_object()) out.emplace(f.key());
      }
    return out;
  }

  static void expect_all(const std::set<std::string>& have, std::initializer_list<const char*> want,
                         const std::string& where) {
    for (const char* name : want) EXPECT_TRUE(have.contains(name)) << where << " lacks " << name;
  }

  static inline TempDir* dir_ = nullptr;
  static inline bool generated_ = false;
};

TEST_F(CodexSchema, ClientRequestsWeSend) {
  expect_all(methods("ClientRequest.json"),
             {"initialize", "thread/start", "thread/resume", "thread/read", "turn/start", "turn/interrupt", "turn/steer"},
             "ClientRequest");
  expect_all(properties(load("v2/ThreadReadParams.json")), {"threadId", "includeTurns"}, "ThreadReadParams");
  expect_all(methods("ClientNotification.json"), {"initialized"}, "ClientNotification");
  expect_all(properties(load("v2/ThreadStartParams.json")), {"cwd", "approvalPolicy", "sandbox", "model", "config"},
             "ThreadStartParams");
  expect_all(properties(load("v2/ThreadResumeParams.json")),
             {"threadId", "cwd", "approvalPolicy", "sandbox", "model", "config", "excludeTurns"}, "ThreadResumeParams");
  expect_all(properties(load("v2/TurnStartParams.json")), {"threadId", "input", "effort"}, "TurnStartParams");
  expect_all(properties(load("v2/TurnSteerParams.json")), {"threadId", "input", "expectedTurnId"}, "TurnSteerParams");
  expect_all(properties(load("v2/TurnInterruptParams.json")), {"threadId", "turnId"}, "TurnInterruptParams");
  const json::object start = load("v2/ThreadStartParams.json");
  expect_all(values(start.at("definitions").at("SandboxMode")), {"read-only", "workspace-write", "danger-full-access"},
             "SandboxMode");
  expect_all(values(start.at("definitions").at("AskForApproval")), {"untrusted", "on-request", "never"},
             "AskForApproval");
}

// Adoption after a restart reads the thread's status and its last turn (docs/backends/codex.md).
TEST_F(CodexSchema, ThreadReadAnswersWhatAdoptionNeeds) {
  const json::object read = load("v2/ThreadReadResponse.json");
  const json::value& definitions = read.at("definitions");
  std::set<std::string> statuses;
  for (const json::value& variant : definitions.at("ThreadStatus").at("oneOf").as_array())
    statuses.insert(std::string(variant.at("properties").at("type").at("enum").at(0).as_string()));
  expect_all(statuses, {"active", "idle", "notLoaded", "systemError"}, "ThreadStatus");
  expect_all(properties(definitions.at("Thread").as_object()), {"id", "status", "turns"}, "Thread");
  expect_all(properties(definitions.at("Turn").as_object()), {"id", "status", "items", "error"}, "Turn");
  expect_all(values(definitions.at("TurnStatus")), {"completed", "interrupted", "failed", "inProgress"}, "TurnStatus");
}

TEST_F(CodexSchema, NotificationsWeMap) {
  expect_all(methods("ServerNotification.json"),
             {"item/started", "item/completed", "item/agentMessage/delta", "thread/tokenUsage/updated", "turn/started",
              "turn/completed", "error", "warning", "configWarning", "deprecationNotice", "guardianWarning",
              "model/rerouted", "serverRequest/resolved", "item/commandExecution/outputDelta",
              "item/fileChange/outputDelta", "item/reasoning/summaryTextDelta", "item/reasoning/textDelta",
              "turn/plan/updated", "turn/diff/updated"},
             "ServerNotification");
  for (const char* delta : {"CommandExecutionOutputDeltaNotification", "FileChangeOutputDeltaNotification",
                            "ReasoningSummaryTextDeltaNotification", "ReasoningTextDeltaNotification"})
    expect_all(properties(load(std::string("v2/") + delta + ".json")), {"itemId", "delta", "threadId", "turnId"}, delta);
  const json::object plan = load("v2/TurnPlanUpdatedNotification.json");
  expect_all(properties(plan), {"plan", "explanation", "turnId"}, "TurnPlanUpdatedNotification");
  expect_all(properties(plan.at("definitions").at("TurnPlanStep").as_object()), {"step", "status"}, "TurnPlanStep");
  expect_all(values(plan.at("definitions").at("TurnPlanStepStatus")), {"pending", "inProgress", "completed"},
             "TurnPlanStepStatus");
  expect_all(properties(load("v2/TurnDiffUpdatedNotification.json")), {"diff", "turnId"}, "TurnDiffUpdatedNotification");
  const json::object usage = load("v2/ThreadTokenUsageUpdatedNotification.json");
  expect_all(properties(usage), {"threadId", "turnId", "tokenUsage"}, "ThreadTokenUsageUpdatedNotification");
  expect_all(properties(usage.at("definitions").at("TokenUsageBreakdown").as_object()),
             {"inputTokens", "cachedInputTokens", "outputTokens", "reasoningOutputTokens", "totalTokens"},
             "TokenUsageBreakdown");
  const json::object completed = load("v2/TurnCompletedNotification.json");
  expect_all(values(completed.at("definitions").at("TurnStatus")), {"completed", "interrupted", "failed"},
             "TurnStatus");
  expect_all(properties(completed.at("definitions").at("TurnError").as_object()), {"message"}, "TurnError");
  expect_all(properties(load("v2/ErrorNotification.json")), {"error", "willRetry", "threadId", "turnId"},
             "ErrorNotification");
  expect_all(properties(load("v2/AgentMessageDeltaNotification.json")), {"itemId", "delta", "threadId", "turnId"},
             "AgentMessageDeltaNotification");
}

TEST_F(CodexSchema, ItemsWeMap) {
  std::map<std::string, std::set<std::string>> items;
  const json::object schema = load("v2/ItemCompletedNotification.json");
  for (const json::value& variant : schema.at("definitions").at("ThreadItem").at("oneOf").as_array())
    items[std::string(variant.at("properties").at("type").at("enum").at(0).as_string())] =
        properties(variant.as_object());
  expect_all(items["agentMessage"], {"id", "text"}, "agentMessage");
  expect_all(items["reasoning"], {"id", "summary", "content"}, "reasoning");
  expect_all(items["commandExecution"],
             {"id", "command", "cwd", "status", "aggregatedOutput", "exitCode", "durationMs"}, "commandExecution");
  expect_all(items["fileChange"], {"id", "changes", "status"}, "fileChange");
  expect_all(values(schema.at("definitions").at("CommandExecutionStatus")), {"completed", "failed", "declined"},
             "CommandExecutionStatus");
}

TEST_F(CodexSchema, ApprovalRequestsAndTheirAnswers) {
  expect_all(methods("ServerRequest.json"),
             {"item/commandExecution/requestApproval", "item/fileChange/requestApproval", "execCommandApproval",
              "applyPatchApproval"},
             "ServerRequest");
  expect_all(properties(load("CommandExecutionRequestApprovalParams.json")), {"itemId", "command", "cwd", "reason"},
             "CommandExecutionRequestApprovalParams");
  expect_all(properties(load("FileChangeRequestApprovalParams.json")), {"itemId", "reason", "grantRoot"},
             "FileChangeRequestApprovalParams");
  expect_all(properties(load("ExecCommandApprovalParams.json")), {"command", "callId", "cwd"},
             "ExecCommandApprovalParams");
  expect_all(values(load("CommandExecutionRequestApprovalResponse.json")
                        .at("definitions")
                        .at("CommandExecutionApprovalDecision")),
             {"accept", "decline", "cancel"}, "CommandExecutionApprovalDecision");
  expect_all(values(load("FileChangeRequestApprovalResponse.json").at("definitions").at("FileChangeApprovalDecision")),
             {"accept", "decline", "cancel"}, "FileChangeApprovalDecision");
  expect_all(values(load("ExecCommandApprovalResponse.json").at("definitions").at("ReviewDecision")),
             {"approved", "denied", "abort"}, "ReviewDecision");
}

}  // namespace
}  // namespace agentry::test
