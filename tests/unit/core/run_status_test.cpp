#include "core/run.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace agentry::core {
namespace {

TEST(RunStatus, EveryStatusHasAStableNameThatParsesBack) {
  const std::pair<RunStatus, const char*> expected[] = {
      {RunStatus::initialized, "initialized"}, {RunStatus::ready, "ready"},
      {RunStatus::running, "running"},         {RunStatus::success, "success"},
      {RunStatus::blocked, "blocked"},         {RunStatus::exhausted, "exhausted"},
      {RunStatus::aborted, "aborted"},         {RunStatus::error, "error"},
  };
  for (const auto& [status, name] : expected) {
    EXPECT_EQ(to_string(status), name);
    EXPECT_EQ(parse_run_status(name), status) << name;
  }
}

TEST(RunStatus, UnknownTextDoesNotParse) {
  EXPECT_FALSE(parse_run_status("").has_value());
  EXPECT_FALSE(parse_run_status("Running").has_value());
  EXPECT_FALSE(parse_run_status("done").has_value());
  EXPECT_FALSE(parse_run_status("running ").has_value());
}

TEST(RunStatus, OnlyEndedStatusesAreTerminal) {
  EXPECT_FALSE(is_terminal(RunStatus::initialized));
  EXPECT_FALSE(is_terminal(RunStatus::ready));
  EXPECT_FALSE(is_terminal(RunStatus::running));
  EXPECT_TRUE(is_terminal(RunStatus::success));
  EXPECT_TRUE(is_terminal(RunStatus::blocked));
  EXPECT_TRUE(is_terminal(RunStatus::exhausted));
  EXPECT_TRUE(is_terminal(RunStatus::aborted));
  EXPECT_TRUE(is_terminal(RunStatus::error));
}

TEST(TaskStatus, EveryStatusHasAStableNameThatParsesBack) {
  const std::pair<TaskStatus, const char*> expected[] = {
      {TaskStatus::pending, "pending"},
      {TaskStatus::in_progress, "in_progress"},
      {TaskStatus::completed, "completed"},
      {TaskStatus::blocked, "blocked"},
  };
  for (const auto& [status, name] : expected) {
    EXPECT_EQ(to_string(status), name);
    EXPECT_EQ(parse_task_status(name), status) << name;
  }
  EXPECT_FALSE(parse_task_status("in-progress").has_value());
  EXPECT_FALSE(parse_task_status("").has_value());
}

}  // namespace
}  // namespace agentry::core
