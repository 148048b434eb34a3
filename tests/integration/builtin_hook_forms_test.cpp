// agent-runner's `with:` form of the command built-in over the real daemon:
// {mode: status|json, command, args, cwd} at beforeAttempt (a block ends the run, a json
// reinvoke rewrites the prompt and its state is kept) and at taskTransition (a non-zero
// exit or a json rejection refuses the change, with the command's reason).
#include "daemon_fixture.hpp"

#include <filesystem>
#include <fstream>
#include <map>

namespace agentry::integration {
namespace {
namespace fs = std::filesystem;
namespace json = boost::json;

class BuiltinHookForms : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    write_agent("scripted", "mock", "{}");  // plays the prompt's "@mock" lines
  }
  std::string start(const std::string& agent, const std::string& assignment, const std::string& message) {
    return start_assignment_run(agent, assignment, message);
  }
  /// The script's absolute path, as agent-runner's command form takes it (no resolution
  /// against the definition's directory).
  std::string script(const std::string& relative, const std::string& body) {
    write_script(relative, body);
    return (config_ / relative).string();
  }
  std::map<std::string, json::object> audits_by_hook(const std::string& run) {
    std::map<std::string, json::object> out;
    const auto detail = get_run(run);
    for (const auto& a : detail.at("hookAudits").as_array()) out[std::string(a.at("hookId").as_string())] = a.as_object();
    return out;
  }
  bool timeline_mentions(const std::string& run, const std::string& text) {
    for (const auto& e : timeline(run))
      if (json::serialize(e).find(text) != std::string::npos) return true;
    return false;
  }
};

TEST_F(BuiltinHookForms, StatusModeBlocksAnAttemptWithTheCommandsOutputAndLetsAZeroExitThrough) {
  // The hook runs in `cwd` (relative to the run's), with `args`.
  fs::create_directories(work_ / "sub");
  const auto lint = script("lint.sh",
                           "[ \"$(basename \"$PWD\")\" = sub ] || { echo \"wrong cwd $PWD\" >&2; exit 9; }\n"
                           "[ \"$1\" = --strict ] || { echo 'no args' >&2; exit 8; }\n"
                           "case \"$AGENTRY_HOOK_PHASE\" in beforeAttempt) ;; *) exit 7 ;; esac\n"
                           "[ -e fail ] && { echo 'lint found 3 problems' >&2; exit 1; }\n"
                           "exit 0\n");
  write_assignment("linted", "hooks:\n  beforeAttempt:\n    - builtin: command\n      with: {mode: status, command: " +
                                 lint + ", args: [--strict], cwd: sub}\n");

  auto passed = start("scripted", "linted", "@mock {\"say\": \"lint passed\"}");
  EXPECT_EQ(wait_until_settled(passed), "success");
  EXPECT_EQ(audits_by_hook(passed)["beforeAttempt-0"].at("outcome").as_string(), "ok");
  EXPECT_TRUE(timeline_mentions(passed, "lint passed"));

  { std::ofstream(work_ / "sub" / "fail") << "x"; }
  auto blocked = start("scripted", "linted", "@mock {\"say\": \"should not run\"}");
  EXPECT_EQ(wait_until_settled(blocked), "error");
  auto detail = get_run(blocked);
  EXPECT_NE(std::string(detail.at("statusReason").as_string()).find("lint found 3 problems"), std::string::npos)
      << json::serialize(detail);
  auto audit = audits_by_hook(blocked)["beforeAttempt-0"];
  EXPECT_EQ(audit.at("outcome").as_string(), "blocked");
  EXPECT_EQ(audit.at("exitCode").as_int64(), 1);
  EXPECT_FALSE(timeline_mentions(blocked, "should not run"));
}

TEST_F(BuiltinHookForms, JsonModeIsAModuleHooksResult) {
  const auto reinvoke = script(
      "reinvoke.sh",
      "printf '%s' '{\"action\": \"reinvoke\", \"followUpPrompt\": \"@mock {\\\"say\\\": \\\"from the json hook\\\"}\", "
      "\"mutate\": {\"state\": {\"checked\": true}, \"note\": \"gated by json\"}}'\n");
  const auto garbage = script("garbage.sh", "echo 'not json'\n");
  write_assignment("json", "hooks:\n  beforeAttempt:\n    - {builtin: command, with: {mode: json, command: " + reinvoke +
                               "}}\n");
  write_assignment("garbled", "hooks:\n  beforeAttempt:\n    - {builtin: command, with: {mode: json, command: " + garbage +
                                  "}}\n");

  auto run = start("scripted", "json", "@mock {\"say\": \"the original\"}");
  EXPECT_EQ(wait_until_settled(run), "success");
  auto detail = get_run(run);
  EXPECT_TRUE(timeline_mentions(run, "from the json hook"));
  EXPECT_EQ(detail.at("hookData").at("checked"), json::value(true)) << json::serialize(detail.at("hookData"));
  EXPECT_EQ(detail.at("note").as_string(), "gated by json");

  auto failed = start("scripted", "garbled", "@mock {\"say\": \"never\"}");
  EXPECT_EQ(wait_until_settled(failed), "error");
  auto audit = audits_by_hook(failed)["beforeAttempt-0"];
  EXPECT_EQ(audit.at("outcome").as_string(), "failed");
  EXPECT_NE(std::string(audit.at("message").as_string()).find("not JSON"), std::string::npos) << json::serialize(audit);
}

TEST_F(BuiltinHookForms, TaskTransitionsAreAcceptedOrRejectedInBothModes) {
  const auto tests = script("tests.sh", "echo 'tests are red' >&2; exit 3\n");
  const auto judge = script("judge.sh",
                            "case \"$1\" in\n"
                            "  build) printf '%s' '{\"accept\": false, \"reason\": \"the judge says no\"}' ;;\n"
                            "  *) printf '%s' '{\"accept\": true}' ;;\n"
                            "esac\n");
  write_assignment("tasks", "tasks:\n  - {id: plan, title: Plan}\n  - {id: build, title: Build}\n"
                            "  - {id: docs, title: Docs}\n"
                            "hooks:\n  taskTransition:\n"
                            "    - {builtin: command, with: {mode: status, command: " + tests +
                                "}, when: {taskId: plan, toStatus: completed}}\n"
                            "    - {builtin: command, with: {mode: json, command: " + judge +
                                ", args: [build]}, when: {taskId: build}}\n"
                            "    - {builtin: command, with: {mode: json, command: " + judge +
                                ", args: [docs]}, when: {taskId: docs}}\n");
  auto run = start("worker", "tasks", "go");
  ASSERT_FALSE(run.empty());
  const std::string tasks = "/api/runs/" + run + "/tasks/";

  auto refused = client().patch_json(tasks + "plan", json::object{{"status", "completed"}});
  EXPECT_EQ(error_code_of(refused), "CONFLICT") << refused.body;
  EXPECT_EQ(refused.json().at("error").at("details").at("reason").as_string(), "hook_refused");
  EXPECT_NE(refused.body.find("tests are red"), std::string::npos) << refused.body;
  EXPECT_EQ(client().patch_json(tasks + "plan", json::object{{"status", "in_progress"}}).status, 200);

  auto judged = client().patch_json(tasks + "build", json::object{{"status", "completed"}});
  EXPECT_EQ(error_code_of(judged), "CONFLICT") << judged.body;
  EXPECT_NE(judged.body.find("the judge says no"), std::string::npos) << judged.body;
  EXPECT_EQ(client().get(tasks + "build").json().at("task").at("status").as_string(), "pending");

  EXPECT_EQ(client().patch_json(tasks + "docs", json::object{{"status", "completed"}}).status, 200);

  auto by_hook = audits_by_hook(run);
  EXPECT_EQ(by_hook["taskTransition-1"].at("outcome").as_string(), "refused");
  EXPECT_EQ(by_hook["taskTransition-2"].at("outcome").as_string(), "ok");
}

}  // namespace
}  // namespace agentry::integration
