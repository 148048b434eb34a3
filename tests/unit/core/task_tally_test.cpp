#include "core/task_tally.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace agentry::core {
namespace {

Task make_task(std::string id, TaskStatus status) {
  Task t;
  t.id = id;
  t.title = "title of " + id;
  t.status = status;
  return t;
}

TEST(TaskTally, EmptyListHasNoCountsAndNoActiveTask) {
  const TaskTally t = tally({});
  EXPECT_EQ(t.total, 0);
  EXPECT_EQ(t.pending, 0);
  EXPECT_EQ(t.in_progress, 0);
  EXPECT_EQ(t.completed, 0);
  EXPECT_EQ(t.blocked, 0);
  EXPECT_FALSE(t.active.has_value());
}

TEST(TaskTally, CountsEachStatusAndNamesTheFirstInProgressTask) {
  const std::vector<Task> tasks{
      make_task("a", TaskStatus::completed), make_task("b", TaskStatus::in_progress),
      make_task("c", TaskStatus::pending),   make_task("d", TaskStatus::in_progress),
      make_task("e", TaskStatus::blocked),   make_task("f", TaskStatus::pending),
  };
  const TaskTally t = tally(tasks);
  EXPECT_EQ(t.total, 6);
  EXPECT_EQ(t.pending, 2);
  EXPECT_EQ(t.in_progress, 2);
  EXPECT_EQ(t.completed, 1);
  EXPECT_EQ(t.blocked, 1);
  ASSERT_TRUE(t.active.has_value());
  EXPECT_EQ(t.active->first, "b");
  EXPECT_EQ(t.active->second, "title of b");
}

TEST(TaskTally, NoInProgressTaskMeansNoActiveTask) {
  const TaskTally t = tally({make_task("a", TaskStatus::completed), make_task("b", TaskStatus::pending)});
  EXPECT_EQ(t.total, 2);
  EXPECT_FALSE(t.active.has_value());
}

TEST(TaskTally, AddingOneByOneMatchesTallyingAList) {
  TaskTally t;
  t.add("x", "X", TaskStatus::pending);
  t.add("y", "Y", TaskStatus::in_progress);
  t.add("z", "Z", TaskStatus::in_progress);
  EXPECT_EQ(t.total, 3);
  EXPECT_EQ(t.pending, 1);
  EXPECT_EQ(t.in_progress, 2);
  ASSERT_TRUE(t.active.has_value());
  EXPECT_EQ(t.active->first, "y");
  EXPECT_EQ(t.active->second, "Y");
}

}  // namespace
}  // namespace agentry::core
