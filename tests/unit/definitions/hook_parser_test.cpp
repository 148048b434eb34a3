#include "definitions/loader.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::has_problem;
using testing::problems_of;
using testing::TempDir;

class HookParser : public ::testing::Test {
 protected:
  Roots roots() const { return Roots{dir.path() / "config", project, fake_env()}; }
  void write(const std::string& hooks_yaml, const std::string& where = "config") const {
    dir.write(where + "/assignments/a/assignment.md", "---\nschemaVersion: 1\nhooks:\n" + hooks_yaml + "---\n");
  }
  std::vector<Problem> problems() const {
    auto result = load_assignment(roots(), "a");
    EXPECT_FALSE(result.ok());
    return result.ok() ? std::vector<Problem>{} : problems_of(result.error());
  }

  TempDir dir;
  std::optional<std::filesystem::path> project;
};

TEST_F(HookParser, ReadsEveryFieldOfBothForms) {
  write("  - id: gate\n    phase: beforeAttempt\n    when: {attempt: first}\n    run: [./gate.sh, --strict]\n"
        "    timeoutSec: 5\n"
        "  - {phase: prepare, builtin: git-worktree, with: {base: main}}\n"
        "  - {phase: afterExit, builtin: command, with: {argv: [notify-send, done]}, when: {status: [success, error]}}\n");
  auto a = load_assignment(roots(), "a");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->hooks.size(), 3u);
  const auto& gate = a->hooks[0];
  EXPECT_EQ(gate.id, "gate");
  EXPECT_EQ(gate.phase, core::HookPhase::before_attempt);
  EXPECT_EQ(gate.run.at(0), (dir.path() / "config/assignments/a/gate.sh").lexically_normal().string());
  EXPECT_EQ(gate.run.at(1), "--strict");
  EXPECT_EQ(gate.timeout_sec, 5);
  EXPECT_EQ(gate.when.at("attempt"), std::vector<std::string>{"first"});
  EXPECT_EQ(gate.origin, "assignment");
  EXPECT_EQ(a->hooks[1].id, "prepare-1");
  EXPECT_EQ(a->hooks[1].builtin, "git-worktree");
  EXPECT_EQ(a->hooks[1].options.at("base").as_string(), "main");
  EXPECT_EQ(a->hooks[1].timeout_sec, core::default_hook_timeout_sec);
  EXPECT_EQ(a->hooks[2].run, (std::vector<std::string>{"notify-send", "done"}));

  write("  beforeAttempt:\n    - {id: g, run: [check]}\n  taskTransition:\n    - {builtin: require-children-success}\n");
  auto grouped = load_assignment(roots(), "a");
  ASSERT_TRUE(grouped.ok()) << grouped.error().message;
  ASSERT_EQ(grouped->hooks.size(), 2u);
  EXPECT_EQ(grouped->hooks[0].phase, core::HookPhase::before_attempt);
  EXPECT_EQ(grouped->hooks[1].phase, core::HookPhase::task_transition);
  // Frozen with the run as JSON and back.
  EXPECT_EQ(core::hook_specs_from_json(core::to_json(a->hooks)).at(0).run, gate.run);
}

TEST_F(HookParser, ReportsEveryMistakeWithItsField) {
  write("  - {phase: later, run: [x]}\n"
        "  - {phase: prepare}\n"
        "  - {phase: prepare, run: [x], builtin: command}\n"
        "  - {phase: prepare, builtin: teleport}\n"
        "  - {phase: afterExit, builtin: git-worktree}\n"
        "  - {phase: prepare, run: [x], timeoutSec: 500}\n"
        "  - {phase: taskTransition, run: [x], when: {status: success}}\n"
        "  - {id: same, phase: prepare, run: [x]}\n"
        "  - {id: same, phase: prepare, run: [y]}\n");
  const auto p = problems();
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[0].phase", "not a phase"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[1]", "needs 'run"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[2]", "exactly one of them"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[3].builtin", "not a built-in"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[4].phase", "prepare only"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[5].timeoutSec", ""));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[6].when.status", "not a filter"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[8]", "duplicate hook id 'same'"));
}

TEST_F(HookParser, AProjectMayNotRunExecutables) {
  project = dir.path() / "repo";
  write("  - {phase: prepare, run: [./evil.sh]}\n", "repo/.agentry");
  EXPECT_TRUE(has_problem(problems(), "assignment.md", "hooks[0]", "project's .agentry/ may not"));
  write("  - {phase: prepare, builtin: git-worktree}\n", "repo/.agentry");
  EXPECT_TRUE(load_assignment(roots(), "a").ok());
}

TEST_F(HookParser, ReadsModuleHooksByNameAndByPathInTheGroupedForm) {
  // By name: the first of hook.ts, hook.mts, hook.js, hook.mjs under <config>/hooks/<name>/.
  dir.write("config/hooks/gate/hook.mjs", "export default {name: 'gate'};\n");
  dir.write("config/hooks/gate/hook.js", "export default {name: 'gate'};\n");
  dir.write("config/assignments/a/hooks/local.mjs", "export default {name: 'local'};\n");
  write("  beforeAttempt:\n    - {name: gate, with: {strict: true}, when: {sessionIndex: 0}}\n"
        "  taskTransition:\n    - {path: ./hooks/local.mjs, when: {toStatus: completed}}\n");
  auto a = load_assignment(roots(), "a");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->hooks.size(), 2u);
  const auto& gate = a->hooks[0];
  EXPECT_EQ(gate.id, "beforeAttempt-0");
  EXPECT_TRUE(gate.is_module());
  EXPECT_EQ(gate.module_path, (dir.path() / "config/hooks/gate/hook.js").lexically_normal().string());
  EXPECT_EQ(gate.module_source, "name:gate");
  EXPECT_TRUE(gate.options.at("strict").as_bool());
  EXPECT_EQ(gate.timeout_sec, 0);  // the daemon's AGENTRY_MODULE_HOOK_TIMEOUT_SEC
  EXPECT_TRUE(gate.run.empty());
  const auto& local = a->hooks[1];
  EXPECT_EQ(local.phase, core::HookPhase::task_transition);
  EXPECT_EQ(local.module_path, (dir.path() / "config/assignments/a/hooks/local.mjs").lexically_normal().string());
  EXPECT_EQ(local.module_source, "path:./hooks/local.mjs");
  // Frozen with the run as JSON and back.
  auto thawed = core::hook_specs_from_json(core::to_json(a->hooks));
  EXPECT_EQ(thawed.at(0).module_path, gate.module_path);
  EXPECT_EQ(thawed.at(1).module_source, local.module_source);
  EXPECT_EQ(thawed.at(0).timeout_sec, 0);
}

TEST_F(HookParser, RefusesModuleHooksThatAreMissingAmbiguousOrFromAnUntrustedProject) {
  write("  beforeAttempt:\n    - {name: nowhere}\n    - {path: ./missing.mjs}\n    - {name: x, path: ./y.mjs}\n"
        "    - {name: ../escape}\n");
  const auto p = problems();
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.beforeAttempt[0].name", "config/hooks/nowhere/hook.ts"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.beforeAttempt[0].name", "hook.mjs"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.beforeAttempt[1].path", "missing.mjs was not found"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.beforeAttempt[2]", "exactly one of them"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.beforeAttempt[3].name", "not a hook name"));

  // The config directory's "a" would win over an untrusted project's.
  std::filesystem::remove_all(dir.path() / "config/assignments/a");
  project = dir.path() / "repo";
  dir.write("repo/.agentry/assignments/a/hook.mjs", "export default {name: 'evil'};\n");
  write("  prepare:\n    - {path: ./hook.mjs}\n", "repo/.agentry");
  EXPECT_TRUE(has_problem(problems(), "assignment.md", "hooks.prepare[0].path", "runs code"));
}

TEST_F(HookParser, InlineTasksTakeTaskTransitionHooksWithoutAPhase) {
  dir.write("config/hooks/gate/hook.mjs", "export default {name: 'gate'};\n");
  dir.write("config/assignments/a/assignment.md",
            "---\nschemaVersion: 1\ntasks:\n"
            "  - {id: plan, title: Plan, hooks: [{name: gate, when: {toStatus: completed}}]}\n"
            "  - {id: build, hooks: [{phase: afterExit, name: gate}]}\n---\n");
  const auto p = problems();
  EXPECT_TRUE(has_problem(p, "assignment.md", "tasks[1].hooks[0].phase", "listed under taskTransition"));

  dir.write("config/assignments/a/assignment.md",
            "---\nschemaVersion: 1\ntasks:\n"
            "  - {id: plan, title: Plan, hooks: [{name: gate, when: {toStatus: completed}}]}\n---\n");
  auto a = load_assignment(roots(), "a");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->tasks.size(), 1u);
  ASSERT_EQ(a->tasks[0].hooks.size(), 1u);
  const auto& hook = a->tasks[0].hooks[0];
  EXPECT_EQ(hook.phase, core::HookPhase::task_transition);
  EXPECT_EQ(hook.id, "taskTransition-0");
  EXPECT_EQ(hook.origin, "task:plan");
  EXPECT_EQ(hook.module_source, "name:gate");
}

TEST_F(HookParser, ReadsAgentRunnersWhenFiltersBesideOurs) {
  write("  beforeAttempt:\n"
        "    - {run: [x], when: {sessionIndex: 0, attemptIndexInSession: [0, 2], attempt: first}}\n"
        "  afterExit:\n"
        "    - {run: [x], when: {sessionIndex: [1], status: success}}\n"
        "  taskTransition:\n"
        "    - {run: [x], when: {taskIds: [plan, build], fromStatus: [pending], toStatus: completed, source: [task-set]}}\n"
        "    - {run: [x], when: {taskId: ' review ', task: review}}\n");
  auto a = load_assignment(roots(), "a");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->hooks.size(), 4u);
  const auto& attempt = a->hooks[0].when;
  EXPECT_EQ(attempt.at("sessionIndex"), std::vector<std::string>{"0"});
  EXPECT_EQ(attempt.at("attemptIndexInSession"), (std::vector<std::string>{"0", "2"}));
  EXPECT_EQ(attempt.at("attempt"), std::vector<std::string>{"first"});
  EXPECT_EQ(a->hooks[1].when.at("sessionIndex"), std::vector<std::string>{"1"});
  const auto& transition = a->hooks[2].when;
  EXPECT_EQ(transition.at("taskId"), (std::vector<std::string>{"plan", "build"})) << "taskIds is kept as taskId";
  EXPECT_EQ(transition.at("fromStatus"), std::vector<std::string>{"pending"});
  EXPECT_EQ(transition.at("toStatus"), std::vector<std::string>{"completed"});
  EXPECT_EQ(transition.at("source"), std::vector<std::string>{"task-set"});
  EXPECT_EQ(a->hooks[3].when.at("taskId"), std::vector<std::string>{"review"}) << "trimmed";

  // What the engine offers a task set of plan, pending -> completed, matches; others do not.
  const std::map<std::string, std::string> plan_done{{"taskId", "plan"}, {"fromStatus", "pending"},
                                                     {"toStatus", "completed"}, {"source", "task-set"}};
  EXPECT_TRUE(core::hook_matches(a->hooks[2], plan_done));
  auto other = plan_done;
  other["taskId"] = "deploy";
  EXPECT_FALSE(core::hook_matches(a->hooks[2], other));
  other = plan_done;
  other["fromStatus"] = "in_progress";
  EXPECT_FALSE(core::hook_matches(a->hooks[2], other));
  EXPECT_TRUE(core::hook_matches(a->hooks[0], {{"sessionIndex", "0"}, {"attemptIndexInSession", "2"}, {"attempt", "first"}}));
  EXPECT_FALSE(core::hook_matches(a->hooks[0], {{"sessionIndex", "1"}, {"attemptIndexInSession", "0"}, {"attempt", "first"}}));
  // Frozen with the run as JSON and back.
  EXPECT_EQ(core::hook_specs_from_json(core::to_json(a->hooks)).at(2).when, transition);
}

TEST_F(HookParser, RefusesAgentRunnersWhenFiltersThatAreMalformedOrCanNeverMatch) {
  write("  beforeAttempt:\n"
        "    - {run: [x], when: {sessionIndex: -1}}\n"
        "    - {run: [x], when: {attemptIndexInSession: []}}\n"
        "    - {run: [x], when: {sessionIndex: first}}\n"
        "    - {run: [x], when: {taskId: plan}}\n"
        "  taskTransition:\n"
        "    - {run: [x], when: {taskId: plan, taskIds: [build]}}\n"
        "    - {run: [x], when: {taskIds: [plan, plan]}}\n"
        "    - {run: [x], when: {toStatus: [done]}}\n"
        "    - {run: [x], when: {source: [task-set, task-add]}}\n"
        "    - {run: [x], when: {source: run-loop}}\n"
        "    - {run: [x], when: {source: [edit]}}\n"
        "    - {run: [x], when: {taskIds: ['  ']}}\n"
        "  prepare:\n"
        "    - {run: [x], when: {sessionIndex: 0}}\n");
  const auto p = problems();
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.beforeAttempt[0].when.sessionIndex", "integer of 0 or more"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.beforeAttempt[1].when.attemptIndexInSession", "non-empty list"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.beforeAttempt[2].when.sessionIndex", "'first'"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.beforeAttempt[3].when.taskId", "not a filter of beforeAttempt"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.taskTransition[0].when", "both 'taskId' and 'taskIds'"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.taskTransition[1].when.taskIds", "twice"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.taskTransition[2].when.toStatus", "'done' is not one of"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.taskTransition[3].when.source", "'task-add' can never match"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.taskTransition[4].when.source", "never changes a task's status"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.taskTransition[5].when.source", "'edit' is not one of"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.taskTransition[6].when.taskIds", "empty task id"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.prepare[0].when.sessionIndex", "they take none"));
}

TEST_F(HookParser, RequireChildrenSuccessTakesOnlyRequireAny) {
  write("  - {phase: taskTransition, builtin: require-children-success, with: {requireAny: true}}\n");
  auto a = load_assignment(roots(), "a");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_TRUE(a->hooks.at(0).options.at("requireAny").as_bool());
  write("  - {phase: taskTransition, builtin: require-children-success, with: {requireAny: 'yes'}}\n"
        "  - {phase: afterExit, builtin: require-children-success, with: {requireAny: false, depth: 2}}\n");
  const auto p = problems();
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[0].with.requireAny", "true or false"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[1].with.depth", "only option is requireAny"));
}

TEST_F(HookParser, TheCommandBuiltInTakesAgentRunnersStatusAndJsonForm) {
  write("  beforeAttempt:\n    - {builtin: command, with: {mode: status, command: make, args: [lint], cwd: sub}}\n"
        "  taskTransition:\n    - {builtin: command, with: {mode: json, command: ./judge.sh}}\n");
  auto a = load_assignment(roots(), "a");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->hooks.size(), 2u);
  EXPECT_TRUE(core::is_command_status_or_json_form(a->hooks[0]));
  EXPECT_TRUE(a->hooks[0].run.empty()) << "their form is not run: argv";
  EXPECT_EQ(a->hooks[0].options.at("args").as_array().at(0).as_string(), "lint");
  EXPECT_EQ(a->hooks[1].options.at("command").as_string(), "./judge.sh");
  // Frozen with the run and back.
  EXPECT_TRUE(core::is_command_status_or_json_form(core::hook_specs_from_json(core::to_json(a->hooks)).at(1)));

  write("  - {phase: prepare, builtin: command, with: {mode: exit, command: make}}\n"
        "  - {phase: prepare, builtin: command, with: {mode: status}}\n"
        "  - {phase: prepare, builtin: command, with: {mode: json, command: make, args: [1, {a: b}]}}\n"
        "  - {phase: prepare, builtin: command, with: {mode: status, command: make, argv: [make]}}\n"
        "  - {phase: prepare, builtin: command, with: {mode: status, command: make, shell: true}}\n"
        "  - {phase: prepare, builtin: command, with: {mode: status, command: make, cwd: ''}}\n");
  const auto p = problems();
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[0].with.mode", "status or json"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[1].with.command", "executable"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[2].with.args", "list of strings"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[3].with.argv", "two forms"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[4].with.shell", "not an option"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[5].with.cwd", "directory"));
}

TEST_F(HookParser, AnUntrustedProjectMayNotRunTheCommandBuiltInInEitherForm) {
  project = dir.path() / "repo";
  write("  - {phase: prepare, builtin: command, with: {mode: status, command: make}}\n", "repo/.agentry");
  EXPECT_TRUE(has_problem(problems(), "assignment.md", "hooks[0]", "project's .agentry/ may not"));
}

TEST_F(HookParser, GitWorktreeReadsAgentRunnersFormAtPrepareAndBeforeAttempt) {
  // Their bundled plan-feature template's shape; the values are templated when it runs.
  write("  prepare:\n"
        "    - {builtin: git-worktree, with: {repo: '{{cwd}}', from: main, branch: feature, path: '{{cwd}}/.wt/f'}}\n"
        "  beforeAttempt:\n"
        "    - builtin: git-worktree\n"
        "      when: {sessionIndex: [0], attemptIndexInSession: [0]}\n"
        "      with: {repo: /src/app, from: '{{base_ref}}', branch: '{{slug}}', path: /src/wt, collision: reuse}\n");
  auto a = load_assignment(roots(), "a");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->hooks.size(), 2u);
  EXPECT_TRUE(core::is_git_worktree_repo_form(a->hooks[0]));
  EXPECT_EQ(a->hooks[0].phase, core::HookPhase::prepare);
  EXPECT_EQ(a->hooks[0].options.at("path").as_string(), "{{cwd}}/.wt/f");
  EXPECT_EQ(a->hooks[1].phase, core::HookPhase::before_attempt);
  EXPECT_EQ(a->hooks[1].options.at("collision").as_string(), "reuse");
  EXPECT_EQ(a->hooks[1].when.at("sessionIndex"), std::vector<std::string>{"0"});
}

TEST_F(HookParser, GitWorktreeChecksEachFormsOptionsByName) {
  write("  - {phase: prepare, builtin: git-worktree, with: {repo: '{{cwd}}', from: main, branch: b, path: /x, base: main}}\n"
        "  - {phase: prepare, builtin: git-worktree, with: {base: main, depth: 1}}\n"
        "  - {phase: prepare, builtin: git-worktree, with: {base: ''}}\n"
        "  - {phase: prepare, builtin: git-worktree, with: {repo: rel/dir, from: main, path: /p, collision: sometimes}}\n"
        "  - {phase: afterExit, builtin: git-worktree, with: {repo: /r, from: main, branch: b, path: /p}}\n"
        "  - {phase: beforeAttempt, builtin: git-worktree, with: {base: main}}\n"
        "  - {phase: prepare, builtin: git-worktree, with: {repo: /r, from: main, branch: b, path: /p, depth: 1}}\n");
  const auto p = problems();
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[0].with.base", "two forms"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[1].with.depth", "not an option of git-worktree"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[2].with.base", "revision"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[3].with.repo", "absolute path"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[3].with.branch", "is required"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[3].with.collision", "fail, reuse or replace"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[4].phase", "prepare or beforeAttempt"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[5].phase", "prepare only"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[6].with.depth", "{repo, from, branch, path, collision} form"));
}

TEST_F(HookParser, AnUntrustedProjectMayNotNameAWorktreePath) {
  project = dir.path() / "repo";
  write("  - {phase: prepare, builtin: git-worktree, with: {repo: /r, from: main, branch: b, path: /p}}\n",
        "repo/.agentry");
  EXPECT_TRUE(has_problem(problems(), "assignment.md", "hooks[0].with", "project's .agentry/ may not"));
}

TEST_F(HookParser, AppendedNotesAndAddedTasksAreSourcesOfAgentRunnersKindsOfHook) {
  write("  taskTransition:\n"
        "    - {builtin: command, with: {mode: status, command: x}, when: {source: [task-append-notes, task-add]}}\n");
  auto a = load_assignment(roots(), "a");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->hooks.at(0).when.at("source"), (std::vector<std::string>{"task-append-notes", "task-add"}));
  write("  taskTransition:\n"
        "    - {builtin: require-children-success, when: {source: task-add}}\n"
        "    - {builtin: command, with: {argv: [x]}, when: {source: task-append-notes}}\n");
  const auto p = problems();
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.taskTransition[0].when.source", "'task-add' can never match"));
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks.taskTransition[1].when.source",
                          "'task-append-notes' can never match"));
}

TEST(HookMatching, EveryWhenKeyMustMatchAFact) {
  core::HookSpec hook;
  hook.when["to"] = {"completed", "blocked"};
  EXPECT_TRUE(core::hook_matches(hook, {{"to", "completed"}, {"task", "x"}}));
  EXPECT_FALSE(core::hook_matches(hook, {{"to", "in_progress"}}));
  EXPECT_FALSE(core::hook_matches(hook, {{"task", "x"}}));
  EXPECT_TRUE(core::hook_matches(core::HookSpec{}, {}));
}

}  // namespace
}  // namespace agentry::definitions
