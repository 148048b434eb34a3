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
  EXPECT_TRUE(has_problem(p, "assignment.md", "hooks[2]", "one or the other"));
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
