#include "api/slow_work.hpp"

#include "api/access_policy.hpp"
#include "api/mcp/mcp_http.hpp"

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

TEST(SlowWork, McpCallsOfSlowToolsRunOffTheRequestWorkersToo) {
  auto call = [](const char* tool) {
    return std::string(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":")") + tool +
           R"(","arguments":{"runId":"r"}}})";
  };
  EXPECT_TRUE(mcp::is_slow_mcp_request("/mcp", call("ask_run")));
  EXPECT_TRUE(mcp::is_slow_mcp_request("/mcp", call("read_diff")));
  EXPECT_FALSE(mcp::is_slow_mcp_request("/mcp", call("show_run")));
  EXPECT_FALSE(mcp::is_slow_mcp_request("/mcp", call("no_such_tool")));
  EXPECT_FALSE(mcp::is_slow_mcp_request("/api/runs", call("ask_run")));
  EXPECT_FALSE(mcp::is_slow_mcp_request("/mcp", "{not json tools/call"));
  EXPECT_FALSE(mcp::is_slow_mcp_request("/mcp", R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"));
  // and /mcp is behind the same bearer token as /api/
  EXPECT_TRUE(is_protected_path("/mcp"));
  EXPECT_FALSE(is_protected_path("/mcpx"));
}

}  // namespace
}  // namespace agentry::api
