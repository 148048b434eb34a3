#include "definitions/locator.hpp"

#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

TEST(Locator, TellsPathsFromNames) {
  EXPECT_TRUE(is_path_target("./agents/planner/agent.md"));
  EXPECT_TRUE(is_path_target("/abs/agent.md"));
  EXPECT_TRUE(is_path_target("../up"));
  EXPECT_TRUE(is_path_target("agents/planner/agent.md"));
  EXPECT_TRUE(is_path_target("launchers/nice.yaml"));
  EXPECT_FALSE(is_path_target("planner"));
  EXPECT_FALSE(is_path_target("review/check"));
}

TEST(Locator, ValidatesNames) {
  EXPECT_TRUE(is_valid_name(Kind::agent, "planner-2.b_c"));
  EXPECT_FALSE(is_valid_name(Kind::agent, ""));
  EXPECT_FALSE(is_valid_name(Kind::agent, ".hidden"));
  EXPECT_FALSE(is_valid_name(Kind::agent, "a/b"));
  EXPECT_FALSE(is_valid_name(Kind::agent, "a b"));
  EXPECT_TRUE(is_valid_name(Kind::task, "review/check"));
  EXPECT_FALSE(is_valid_name(Kind::task, "review//check"));
  EXPECT_FALSE(is_valid_name(Kind::task, "review/../x"));
  EXPECT_FALSE(is_valid_name(Kind::task, "/review"));
  EXPECT_FALSE(is_valid_name(Kind::task, "review/"));
}

TEST(Locator, SearchRootsPutATrustedProjectFirstAndAnUntrustedOneLast) {
  Roots roots{"/cfg", std::filesystem::path("/repo"), {}};
  roots.project_trusted = true;
  const auto dirs = search_roots(roots);
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], std::filesystem::path("/repo/.agentry"));
  EXPECT_EQ(dirs[1], std::filesystem::path("/cfg"));
  roots.project_trusted = false;
  EXPECT_EQ(search_roots(roots), (std::vector<std::filesystem::path>{"/cfg", "/repo/.agentry"}));
}

}  // namespace
}  // namespace agentry::definitions
