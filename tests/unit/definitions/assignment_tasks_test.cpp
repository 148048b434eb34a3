#include "definitions/loader.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::has_problem;
using testing::problems_of;
using testing::TempDir;

class AssignmentTasks : public ::testing::Test {
 protected:
  Roots roots() const { return Roots{dir.path() / "config", std::nullopt, fake_env()}; }
  void write_tasks(const std::string& tasks_yaml) const {
    dir.write("config/assignments/a/assignment.md", "---\nschemaVersion: 1\ntasks:\n" + tasks_yaml + "---\n");
  }
  std::vector<Problem> problems() const {
    auto result = load_assignment(roots(), "a");
    EXPECT_FALSE(result.ok());
    return result.ok() ? std::vector<Problem>{} : problems_of(result.error());
  }

  TempDir dir;
};

TEST_F(AssignmentTasks, ResolvesInlineDefinitionAndFileTasks) {
  dir.write("config/tasks/review/check.md",
            "---\nschemaVersion: 1\ntitle: Review the change\nhooks:\n  taskTransition:\n    - {builtin: require-children-success, when: {to: completed}}\n---\nRead the diff.\n");
  dir.write("config/assignments/a/steps/lint.md", "---\nschemaVersion: 1\n---\nRun the linter.\n");
  write_tasks("  - {id: plan, title: Plan, body: Write a plan}\n  - review/check\n  - ./steps/lint.md\n");

  auto assignment = load_assignment(roots(), "a");
  ASSERT_TRUE(assignment.ok()) << assignment.error().message;
  ASSERT_EQ(assignment->tasks.size(), 3u);

  const auto& plan = assignment->tasks[0];
  EXPECT_EQ(plan.id, "plan");
  EXPECT_EQ(plan.body, "Write a plan");
  EXPECT_EQ(plan.source, "inline");
  EXPECT_TRUE(plan.hooks.empty());

  const auto& review = assignment->tasks[1];
  EXPECT_EQ(review.id, "review/check");
  EXPECT_EQ(review.title, "Review the change");
  EXPECT_EQ(review.body, "Read the diff.");
  EXPECT_EQ(review.source, "definition:review/check");
  ASSERT_EQ(review.hooks.size(), 1u);
  EXPECT_EQ(review.hooks[0].phase, core::HookPhase::task_transition);
  EXPECT_EQ(review.hooks[0].origin, "task:review/check");
  EXPECT_EQ(review.hooks[0].when.at("to"), std::vector<std::string>{"completed"});

  const auto& lint = assignment->tasks[2];
  EXPECT_EQ(lint.id, "steps/lint");
  EXPECT_EQ(lint.title, "steps/lint");
  EXPECT_EQ(lint.body, "Run the linter.");
  EXPECT_EQ(lint.source, "file:" + (dir.path() / "config/assignments/a/steps/lint.md").string());
}

TEST_F(AssignmentTasks, TaskDefinitionsFollowProjectPrecedence) {
  dir.write("config/tasks/check.md", "---\nschemaVersion: 1\ntitle: global\n---\n");
  dir.write("project/.agentry/tasks/check.md", "---\nschemaVersion: 1\ntitle: local\n---\n");
  write_tasks("  - check\n");
  Roots with_project = roots();
  with_project.project_dir = dir.path() / "project";
  EXPECT_EQ(load_assignment(with_project, "a")->tasks[0].title, "global") << "an untrusted project never wins";
  with_project.project_trusted = true;
  auto assignment = load_assignment(with_project, "a");
  ASSERT_TRUE(assignment.ok()) << assignment.error().message;
  EXPECT_EQ(assignment->tasks[0].title, "local");
}

TEST_F(AssignmentTasks, DuplicateIdsAreErrors) {
  dir.write("config/tasks/plan.md", "---\nschemaVersion: 1\n---\n");
  write_tasks("  - {id: plan}\n  - plan\n");
  EXPECT_TRUE(has_problem(problems(), "assignment.md", "tasks[1]", "duplicate task id 'plan' (already used by tasks[0])"));
}

TEST_F(AssignmentTasks, MissingReferencesAreErrors) {
  write_tasks("  - review/ghost\n  - ./nope.md\n  - ./../../escape.md\n");
  const auto found = problems();
  EXPECT_TRUE(has_problem(found, "assignment.md", "tasks[0]", "no task definition named 'review/ghost'"))
      << testing::dump(found);
  EXPECT_TRUE(has_problem(found, "assignment.md", "tasks[1]", "names no file"));
  EXPECT_TRUE(has_problem(found, "assignment.md", "tasks[2]", "outside the assignment's directory"));
}

TEST_F(AssignmentTasks, BrokenTaskFilesReportBothFiles) {
  dir.write("config/tasks/broken.md", "---\ntitle: no schema\n---\n");
  write_tasks("  - broken\n");
  const auto found = problems();
  EXPECT_TRUE(has_problem(found, "assignment.md", "tasks[0]", "task definition 'broken'")) << testing::dump(found);
  EXPECT_TRUE(has_problem(found, "tasks/broken.md", "schemaVersion", "is required"));
}

TEST_F(AssignmentTasks, MalformedItemsAreErrors) {
  write_tasks("  - {title: no id}\n  - [a, b]\n  - \"bad name!\"\n");
  const auto found = problems();
  EXPECT_TRUE(has_problem(found, "assignment.md", "tasks[0].id", "is required")) << testing::dump(found);
  EXPECT_TRUE(has_problem(found, "assignment.md", "tasks[1]", "must be a task id"));
  EXPECT_TRUE(has_problem(found, "assignment.md", "tasks[2]", "neither a task definition id"));
}

TEST_F(AssignmentTasks, TasksMustBeAList) {
  dir.write("config/assignments/a/assignment.md", "---\nschemaVersion: 1\ntasks: {id: x}\n---\n");
  EXPECT_TRUE(has_problem(problems(), "assignment.md", "tasks", "must be a list"));
}

TEST_F(AssignmentTasks, UnknownInlineKeysAreWarnings) {
  write_tasks("  - {id: plan, status: done}\n");
  auto assignment = load_assignment(roots(), "a");
  ASSERT_TRUE(assignment.ok()) << assignment.error().message;
  EXPECT_TRUE(has_problem(assignment->warnings, "assignment.md", "tasks[0].status", "unknown field"));
}

}  // namespace
}  // namespace agentry::definitions
