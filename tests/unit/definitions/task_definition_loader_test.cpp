#include "definitions/loader.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::has_problem;
using testing::problems_of;
using testing::TempDir;

class TaskDefinitionLoader : public ::testing::Test {
 protected:
  Roots roots() const { return Roots{dir.path() / "config", std::nullopt, fake_env()}; }
  TempDir dir;
};

TEST_F(TaskDefinitionLoader, IdsMayContainSlashes) {
  dir.write("config/tasks/review/check.md",
            "---\nschemaVersion: 1\ntitle: Check\nhooks:\n  - {id: lint, phase: taskTransition, run: [./lint.sh, -q], when: {to: [completed]}}\n---\nLook closely.\n");
  auto task = load_task_definition(roots(), "review/check");
  ASSERT_TRUE(task.ok()) << task.error().message;
  EXPECT_EQ(task->id, "review/check");
  EXPECT_EQ(task->title, "Check");
  EXPECT_EQ(task->body, "Look closely.");
  ASSERT_EQ(task->hooks.size(), 1u);
  EXPECT_EQ(task->hooks[0].id, "lint");
  EXPECT_EQ(task->hooks[0].run.at(0), (dir.path() / "config/tasks/review/lint.sh").lexically_normal().string());
}

TEST_F(TaskDefinitionLoader, AnIdFieldMustMatchTheFile) {
  dir.write("config/tasks/review/reuse.md", "---\nschemaVersion: 1\nid: review/reuse\ntitle: Reuse\nhooks: []\n---\nB\n");
  dir.write("config/tasks/review/moved.md", "---\nschemaVersion: 1\nid: review/old-name\n---\n");
  auto task = load_task_definition(roots(), "review/reuse");
  ASSERT_TRUE(task.ok()) << task.error().message;
  EXPECT_TRUE(task->warnings.empty()) << testing::dump(task->warnings);
  auto moved = load_task_definition(roots(), "review/moved");
  ASSERT_FALSE(moved.ok());
  EXPECT_TRUE(has_problem(problems_of(moved.error()), "tasks/review/moved.md", "id", "skipped until they match"));
  const auto list = list_task_definitions(roots());
  ASSERT_EQ(list.entries.size(), 1u);
  EXPECT_TRUE(has_problem(list.warnings, "tasks/review/moved.md", "id", "'review/old-name'"));
}

TEST_F(TaskDefinitionLoader, TitleDefaultsToTheId) {
  dir.write("config/tasks/plain.md", "---\nschemaVersion: 1\n---\nBody\n");
  auto task = load_task_definition(roots(), "plain");
  ASSERT_TRUE(task.ok());
  EXPECT_EQ(task->title, "plain");
  EXPECT_TRUE(task->hooks.empty());
}

TEST_F(TaskDefinitionLoader, DirectPathTakesItsIdFromTheTasksDirectory) {
  dir.write("config/tasks/review/check.md", "---\nschemaVersion: 1\n---\n");
  auto task = load_task_definition(roots(), "./tasks/review/check.md", dir.path() / "config");
  ASSERT_TRUE(task.ok()) << task.error().message;
  EXPECT_EQ(task->id, "review/check");
}

TEST_F(TaskDefinitionLoader, ErrorsNameFileAndField) {
  dir.write("config/tasks/bad.md", "---\nschemaVersion: \"one\"\ntitle: [a]\n---\n");
  auto task = load_task_definition(roots(), "bad");
  ASSERT_FALSE(task.ok());
  const auto found = problems_of(task.error());
  EXPECT_TRUE(has_problem(found, "tasks/bad.md", "schemaVersion", "must be 1, not 'one'")) << testing::dump(found);
  EXPECT_TRUE(has_problem(found, "tasks/bad.md", "title", "must be a string"));
}

TEST_F(TaskDefinitionLoader, RejectsNamesThatEscape) {
  auto task = load_task_definition(roots(), "review/../../etc");
  ASSERT_FALSE(task.ok());
  EXPECT_EQ(task.error().code, core::ErrorCode::invalid_request);
}

}  // namespace
}  // namespace agentry::definitions
