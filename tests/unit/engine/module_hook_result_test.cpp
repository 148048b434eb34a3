// How a JavaScript module hook's result maps onto what agentry's hooks do
// (engine/hooks/module_hook.hpp): each action per phase, the mutations agentry applies,
// and the ones it refuses with a message naming them.
#include "engine/hooks/module_hook.hpp"

#include <boost/json.hpp>

#include <gtest/gtest.h>

namespace agentry::engine {
namespace {
namespace json = boost::json;
using core::HookPhase;

ModuleVerdict map(HookPhase phase, std::string_view result) { return map_module_result(phase, json::parse(result)); }

TEST(ModuleHookResult, NothingOrContinueOrAcceptLetsThrough) {
  for (auto phase : {HookPhase::prepare, HookPhase::before_attempt, HookPhase::after_attempt, HookPhase::after_exit}) {
    auto v = map(phase, R"({"action": "continue"})");
    EXPECT_FALSE(v.failure) << *v.failure;
    EXPECT_FALSE(v.block);
    EXPECT_FALSE(map(phase, "null").block);
  }
  auto accepted = map(HookPhase::task_transition, R"({"accept": true})");
  EXPECT_FALSE(accepted.failure);
  EXPECT_FALSE(accepted.block);
}

TEST(ModuleHookResult, BlockRejectAndReinvokeMapWhereAgentryCanDoThem) {
  EXPECT_EQ(map(HookPhase::before_attempt, R"({"action": "block", "reason": "no"})").block, "no");
  EXPECT_EQ(map(HookPhase::after_exit, R"({"action": "block", "reason": "not done"})").block, "not done");
  EXPECT_EQ(map(HookPhase::task_transition, R"({"accept": false, "reason": "red"})").block, "red");
  EXPECT_EQ(map(HookPhase::task_transition, R"({"accept": false})").block, "rejected by the hook");
  EXPECT_EQ(map(HookPhase::before_attempt, R"({"action": "reinvoke", "followUpPrompt": "again"})").prompt, "again");

  auto late_block = map(HookPhase::after_attempt, R"({"action": "block", "reason": "x"})");
  ASSERT_TRUE(late_block.failure);
  EXPECT_NE(late_block.failure->find("block at afterAttempt is not supported"), std::string::npos);
  auto late_reinvoke = map(HookPhase::after_exit, R"({"action": "reinvoke", "followUpPrompt": "more"})");
  ASSERT_TRUE(late_reinvoke.failure);
  EXPECT_NE(late_reinvoke.failure->find("reinvoke at afterExit is not supported"), std::string::npos);
  EXPECT_TRUE(map(HookPhase::before_attempt, R"({"action": "reinvoke"})").failure);
  // At prepare it is the run's first prompt.
  auto first = map(HookPhase::prepare, R"({"action": "reinvoke", "followUpPrompt": "begin here"})");
  EXPECT_FALSE(first.failure);
  EXPECT_EQ(first.prompt, "begin here");
}

TEST(ModuleHookResult, RunFieldsAndVarsAreTakenAtPrepareOnly) {
  auto v = map(HookPhase::prepare, R"({"action": "continue", "mutate": {
      "run": {"cwd": "/tmp", "model": "m", "timeoutSec": 5, "initialPrompt": "first", "effort": null},
      "vars": {"repo_root": "/r"}}})");
  ASSERT_FALSE(v.failure) << *v.failure;
  EXPECT_EQ(json::value(v.run), json::parse(R"({"cwd": "/tmp", "model": "m", "timeoutSec": 5})"));
  EXPECT_EQ(json::value(v.vars), json::parse(R"({"repo_root": "/r"})"));
  EXPECT_EQ(v.prompt, "first");
  // reinvoke's prompt wins over mutate.run.initialPrompt, as in agent-runner.
  EXPECT_EQ(map(HookPhase::prepare, R"({"action": "reinvoke", "followUpPrompt": "re",
                                        "mutate": {"run": {"initialPrompt": "first"}}})").prompt, "re");
  // The attempt's prompt at beforeAttempt.
  EXPECT_EQ(map(HookPhase::before_attempt, R"({"action": "continue", "mutate": {"run": {"attemptPrompt": "p"}}})").prompt,
            "p");
  auto at = [](HookPhase phase, std::string_view mutate) {
    return map(phase, std::string(R"({"action": "continue", "mutate": )") + std::string(mutate) + "}").failure.value_or("");
  };
  EXPECT_NE(at(HookPhase::before_attempt, R"({"run": {"model": "x"}})").find("mutate.run.model cannot be changed at beforeAttempt"),
            std::string::npos);
  EXPECT_NE(at(HookPhase::prepare, R"({"run": {"attemptPrompt": "x"}})").find("mutate.run.attemptPrompt is not used at prepare"),
            std::string::npos);
  EXPECT_NE(at(HookPhase::prepare, R"({"run": {"colour": "red"}})").find("mutate.run.colour is not a run field"),
            std::string::npos);
  EXPECT_NE(at(HookPhase::before_attempt, R"({"vars": {"a": 1}})").find("mutate.vars is only allowed at prepare"),
            std::string::npos);
  EXPECT_NE(at(HookPhase::prepare, R"({"vars": [1]})").find("mutate.vars must be an object"), std::string::npos);
}

TEST(ModuleHookResult, MalformedResultsFailNamingWhatIsWrong) {
  EXPECT_NE(map(HookPhase::before_attempt, R"("yes")").failure->find("must be an object"), std::string::npos);
  EXPECT_NE(map(HookPhase::before_attempt, R"({"action": "stop"})").failure->find("'stop' is not an action"),
            std::string::npos);
  EXPECT_NE(map(HookPhase::task_transition, R"({"action": "continue"})").failure->find("accept: true or false"),
            std::string::npos);
  EXPECT_NE(map(HookPhase::before_attempt, R"({"action": "continue", "mutate": {"state": 3}})")
                .failure->find("mutate.state must be an object"),
            std::string::npos);
}

TEST(ModuleHookResult, StateNotePinAndTaskPatchesAreKept) {
  auto v = map(HookPhase::task_transition, R"({"accept": true, "mutate": {
      "state": {"a": 1, "b": {"c": true}}, "note": "hi", "pinned": true,
      "patchTasks": [{"taskId": "build", "status": "in_progress", "notesAppend": "go"},
                     {"taskId": "plan", "notesReplace": "fresh"}]}})");
  ASSERT_FALSE(v.failure) << *v.failure;
  EXPECT_EQ(json::value(v.state), json::parse(R"({"a": 1, "b": {"c": true}})"));
  EXPECT_EQ(v.note, "hi");
  EXPECT_EQ(v.pinned, true);
  ASSERT_EQ(v.patch_tasks.size(), 2u);
  EXPECT_EQ(v.patch_tasks[0].task_id, "build");
  EXPECT_EQ(v.patch_tasks[0].status, core::TaskStatus::in_progress);
  EXPECT_EQ(v.patch_tasks[0].notes_append, "go");
  EXPECT_EQ(v.patch_tasks[1].notes_replace, "fresh");
}

TEST(ModuleHookResult, TaskPatchesAndMutationsAgentryCannotApplyAreRefused) {
  auto refused = [](std::string_view mutate) {
    auto v = map(HookPhase::before_attempt, std::string(R"({"action": "continue", "mutate": )") + std::string(mutate) + "}");
    return v.failure.value_or("");
  };
  EXPECT_NE(refused(R"({"run": {"cwd": "/tmp"}})").find("mutate.run.cwd cannot be changed at beforeAttempt"),
            std::string::npos);
  EXPECT_NE(refused(R"({"teleport": true})").find("mutate.teleport is not a mutation"), std::string::npos);
  EXPECT_NE(refused(R"({"patchTasks": [{"status": "completed"}]})").find("patchTasks[0].taskId is required"),
            std::string::npos);
  EXPECT_NE(refused(R"({"patchTasks": [{"taskId": "a", "status": "done"}]})").find("'done' is not pending"),
            std::string::npos);
  EXPECT_NE(refused(R"({"patchTasks": [{"taskId": "a", "notesReplace": "x", "notesAppend": "y"}]})")
                .find("both notesReplace and notesAppend"),
            std::string::npos);
  EXPECT_NE(refused(R"({"patchTasks": [{"taskId": "a", "title": "x"}]})").find("title is not a member"),
            std::string::npos);
}

}  // namespace
}  // namespace agentry::engine
