#include "api/slow_work.hpp"

#include <gtest/gtest.h>

namespace agentry::api {
namespace {

TEST(SlowWork, WorkspaceRoutesAndMethodsRunOffTheRequestWorkers) {
  EXPECT_TRUE(is_slow_path("/api/runs/abc123/workspace/diff"));
  EXPECT_TRUE(is_slow_path("/api/runs/abc123/workspace/search"));
  EXPECT_TRUE(is_slow_path("/api/runs/abc123/workspace/raw"));
  EXPECT_FALSE(is_slow_path("/api/runs/abc123"));
  EXPECT_FALSE(is_slow_path("/api/runs/abc123/tasks/workspace/x"));
  EXPECT_FALSE(is_slow_path("/api/runs"));
  EXPECT_FALSE(is_slow_path("/api/runs/workspace"));
  EXPECT_FALSE(is_slow_path("/workspace/"));
  EXPECT_TRUE(is_slow_method("workspace.diff"));
  EXPECT_TRUE(is_slow_method("workspace.files"));
  EXPECT_FALSE(is_slow_method("runs.get"));
  EXPECT_FALSE(is_slow_method("workspace"));
}

TEST(SlowWork, QuestionsToABackendRunOffTheRequestWorkers) {
  EXPECT_TRUE(is_slow_path("/api/runs/abc123/ask"));
  EXPECT_FALSE(is_slow_path("/api/runs/abc123/ask/more"));
  EXPECT_FALSE(is_slow_path("/api/runs/abc123/tasks/ask"));
  EXPECT_TRUE(is_slow_method("runs.ask"));
  EXPECT_FALSE(is_slow_method("runs.abort"));
}

}  // namespace
}  // namespace agentry::api
