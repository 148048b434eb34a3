#include "cli/paths.hpp"

#include <gtest/gtest.h>

namespace agentry::cli {
namespace {
namespace fs = std::filesystem;

TEST(Paths, GivenDirectoriesWin) {
  core::Settings s;
  s.home = "/state/here";
  s.config_dir = "/config/here";
  s.web_dir = "/web/here";
  s.xdg_state_home = "/xdg/state";
  s.user_home = "/home/u";
  auto p = resolve_paths(s);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->home, fs::path("/state/here"));
  EXPECT_EQ(p->config_dir, fs::path("/config/here"));
  EXPECT_EQ(p->web_dir, fs::path("/web/here"));
  EXPECT_EQ(p->database(), fs::path("/state/here/agentry.db"));
}

TEST(Paths, DefaultsAreUnderTheXdgDirectoriesElseUnderHome) {
  core::Settings s;
  s.xdg_state_home = "/xdg/state";
  s.xdg_config_home = "/xdg/config";
  s.user_home = "/home/u";
  auto xdg = resolve_paths(s);
  ASSERT_TRUE(xdg.ok()) << xdg.error().message;
  EXPECT_EQ(xdg->home, fs::path("/xdg/state/agentry"));
  EXPECT_EQ(xdg->config_dir, fs::path("/xdg/config/agentry"));

  s.xdg_state_home.clear();
  s.xdg_config_home.clear();
  auto home = resolve_paths(s);
  ASSERT_TRUE(home.ok()) << home.error().message;
  EXPECT_EQ(home->home, fs::path("/home/u/.local/state/agentry"));
  EXPECT_EQ(home->config_dir, fs::path("/home/u/.config/agentry"));
}

TEST(Paths, WithNothingToGoOnTheVariableToSetIsNamed) {
  core::Settings s;
  auto none = resolve_paths(s);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("set AGENTRY_HOME (HOME is not set either)"), std::string::npos)
      << none.error().message;
  s.home = "/state/here";
  auto no_config = resolve_paths(s);
  ASSERT_FALSE(no_config.ok());
  EXPECT_NE(no_config.error().message.find("set AGENTRY_CONFIG_DIR"), std::string::npos);
}

}  // namespace
}  // namespace agentry::cli
