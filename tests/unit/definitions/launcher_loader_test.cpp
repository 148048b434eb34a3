#include "definitions/loader.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::has_problem;
using testing::problems_of;
using testing::TempDir;

class LauncherLoader : public ::testing::Test {
 protected:
  Roots roots() const { return Roots{dir.path() / "config", std::nullopt, fake_env({{"SANDBOX_HOME", "/sb"}})}; }
  std::vector<Problem> problems(std::string_view name) const {
    auto result = load_launcher(roots(), name);
    EXPECT_FALSE(result.ok());
    return result.ok() ? std::vector<Problem>{} : problems_of(result.error());
  }
  TempDir dir;
};

TEST_F(LauncherLoader, LoadsCommandAndEnv) {
  dir.write("config/launchers/sandbox.yaml", R"(schemaVersion: 1
description: Run inside a sandbox
command: [bwrap, --bind, "${SANDBOX_HOME}", /home, "10"]
env:
  SANDBOXED: 1
  EMPTY:
)");
  auto launcher = load_launcher(roots(), "sandbox");
  ASSERT_TRUE(launcher.ok()) << launcher.error().message;
  EXPECT_EQ(launcher->name, "sandbox");
  EXPECT_EQ(launcher->description, "Run inside a sandbox");
  EXPECT_EQ(launcher->command, (std::vector<std::string>{"bwrap", "--bind", "/sb", "/home", "10"}));
  EXPECT_EQ(launcher->env.at("SANDBOXED"), "1");
  EXPECT_EQ(launcher->env.at("EMPTY"), "");

  const auto frozen = to_frozen_launcher(*launcher);
  EXPECT_EQ(frozen.name, "sandbox");
  EXPECT_EQ(frozen.command.front(), "bwrap");
  EXPECT_EQ(frozen.env.at("SANDBOXED").as_string(), "1");
}

TEST_F(LauncherLoader, CommandIsRequiredAndNonEmpty) {
  dir.write("config/launchers/none.yaml", "schemaVersion: 1\n");
  dir.write("config/launchers/empty.yaml", "schemaVersion: 1\ncommand: []\n");
  dir.write("config/launchers/text.yaml", "schemaVersion: 1\ncommand: nice -n 10\n");
  dir.write("config/launchers/blank.yaml", "schemaVersion: 1\ncommand: [nice, \"\"]\n");
  EXPECT_TRUE(has_problem(problems("none"), "launchers/none.yaml", "command", "is required"));
  EXPECT_TRUE(has_problem(problems("empty"), "launchers/empty.yaml", "command", "at least the program"));
  EXPECT_TRUE(has_problem(problems("text"), "launchers/text.yaml", "command", "list of strings"));
  EXPECT_TRUE(has_problem(problems("blank"), "launchers/blank.yaml", "command[1]", "must not be empty"));
}

TEST_F(LauncherLoader, EnvErrorsAndUnknownKeys) {
  dir.write("config/launchers/bad.yaml", "schemaVersion: 1\ncommand: [x]\nenv: {A: [1]}\n");
  dir.write("config/launchers/odd.yaml", "schemaVersion: 1\ncommand: [x]\nargs: [y]\n");
  EXPECT_TRUE(has_problem(problems("bad"), "launchers/bad.yaml", "env.A", "must be a string"));
  auto odd = load_launcher(roots(), "odd");
  ASSERT_TRUE(odd.ok());
  EXPECT_TRUE(has_problem(odd->warnings, "launchers/odd.yaml", "args", "unknown field"));
}

TEST_F(LauncherLoader, DirectPathUsesTheFileStem) {
  dir.write("config/misc/wrap.yaml", "schemaVersion: 1\ncommand: [env]\n");
  auto launcher = load_launcher(roots(), "./misc/wrap.yaml", dir.path() / "config");
  ASSERT_TRUE(launcher.ok()) << launcher.error().message;
  EXPECT_EQ(launcher->name, "wrap");
}

}  // namespace
}  // namespace agentry::definitions
