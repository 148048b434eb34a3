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
  dir.write("config/launchers/blank.yaml", "schemaVersion: 1\ncommand: [nice, \"\"]\n");
  EXPECT_TRUE(has_problem(problems("none"), "launchers/none.yaml", "command", "is required"));
  EXPECT_TRUE(has_problem(problems("empty"), "launchers/empty.yaml", "command", "at least the program"));
  EXPECT_TRUE(has_problem(problems("blank"), "launchers/blank.yaml", "command[1]", "must not be empty"));
}

TEST_F(LauncherLoader, StringCommandWithArgsIsTheSameAsTheList) {
  // The agent-runner form: `command` names the program, `args` follow it.
  dir.write("config/launchers/ssh.yaml", R"(schemaVersion: 1
name: ssh
command: ssh
args: [worker, docker, exec, "${SANDBOX_HOME}"]
)");
  dir.write("config/launchers/list.yaml", "schemaVersion: 1\ncommand: [ssh, worker, docker, exec, /sb]\n");
  dir.write("config/launchers/alone.yaml", "schemaVersion: 1\ncommand: nice\n");
  dir.write("config/launchers/both.yaml", "schemaVersion: 1\ncommand: [nice, -n]\nargs: [\"10\"]\n");
  auto ssh = load_launcher(roots(), "ssh");
  ASSERT_TRUE(ssh.ok()) << ssh.error().message;
  EXPECT_TRUE(ssh->warnings.empty()) << testing::dump(ssh->warnings);
  auto list = load_launcher(roots(), "list");
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(ssh->command, list->command);
  EXPECT_EQ(ssh->command, (std::vector<std::string>{"ssh", "worker", "docker", "exec", "/sb"}));
  EXPECT_EQ(load_launcher(roots(), "alone")->command, (std::vector<std::string>{"nice"}));
  // args follow a list command too.
  auto both = load_launcher(roots(), "both");
  ASSERT_TRUE(both.ok()) << both.error().message;
  EXPECT_EQ(both->command, (std::vector<std::string>{"nice", "-n", "10"}));
}

TEST_F(LauncherLoader, StringCommandIsOneProgramNotAShellLine) {
  dir.write("config/launchers/text.yaml", "schemaVersion: 1\ncommand: nice -n 10\n");
  dir.write("config/launchers/piped.yaml", "schemaVersion: 1\ncommand: \"env FOO=1 | sh\"\nargs: [x]\n");
  const auto text = problems("text");
  EXPECT_TRUE(has_problem(text, "launchers/text.yaml", "command", "not run through a shell")) << testing::dump(text);
  EXPECT_TRUE(has_problem(text, "launchers/text.yaml", "command", "command: nice, args: [...]"));
  EXPECT_TRUE(has_problem(problems("piped"), "launchers/piped.yaml", "command", "contains blanks"));
  // Without blanks the string is taken as the program's name, shell characters and all.
  dir.write("config/launchers/odd.yaml", "schemaVersion: 1\ncommand: \"a;b\"\n");
  EXPECT_EQ(load_launcher(roots(), "odd")->command, (std::vector<std::string>{"a;b"}));
}

TEST_F(LauncherLoader, ArgsErrorsNameTheItem) {
  dir.write("config/launchers/blank.yaml", "schemaVersion: 1\ncommand: nice\nargs: [-n, \"\"]\n");
  dir.write("config/launchers/map.yaml", "schemaVersion: 1\ncommand: nice\nargs: {n: 10}\n");
  dir.write("config/launchers/nested.yaml", "schemaVersion: 1\ncommand: {program: nice}\n");
  EXPECT_TRUE(has_problem(problems("blank"), "launchers/blank.yaml", "args[1]", "must not be empty"));
  EXPECT_TRUE(has_problem(problems("map"), "launchers/map.yaml", "args", "list of strings"));
  EXPECT_TRUE(has_problem(problems("nested"), "launchers/nested.yaml", "command", "program name or a list"));
}

TEST_F(LauncherLoader, NameMustMatchTheFile) {
  dir.write("config/launchers/wrap.yaml", "schemaVersion: 1\nname: wrap\ncommand: env\n");
  dir.write("config/launchers/other.yaml", "schemaVersion: 1\nname: wrap\ncommand: env\n");
  auto wrap = load_launcher(roots(), "wrap");
  ASSERT_TRUE(wrap.ok()) << wrap.error().message;
  EXPECT_TRUE(wrap->warnings.empty()) << testing::dump(wrap->warnings);
  EXPECT_TRUE(has_problem(problems("other"), "launchers/other.yaml", "name", "skipped until they match"));
}

TEST_F(LauncherLoader, YmlFilesAreLaunchersToo) {
  dir.write("config/launchers/short.yml", "schemaVersion: 1\ncommand: nice\n");
  dir.write("config/launchers/twice.yaml", "schemaVersion: 1\ncommand: [from-yaml]\n");
  dir.write("config/launchers/twice.yml", "schemaVersion: 1\ncommand: [from-yml]\n");
  auto yml = load_launcher(roots(), "short");
  ASSERT_TRUE(yml.ok()) << yml.error().message;
  EXPECT_EQ(yml->name, "short");
  EXPECT_EQ(load_launcher(roots(), "twice")->command, (std::vector<std::string>{"from-yaml"}));
  const auto list = list_launchers(roots());
  ASSERT_EQ(list.entries.size(), 2u);
  EXPECT_EQ(list.entries[0].name, "short");
  EXPECT_EQ(list.entries[1].command, (std::vector<std::string>{"from-yaml"}));
  EXPECT_TRUE(has_problem(list.warnings, "launchers/twice.yml", "", "twice.yaml defines the same launcher"));
}

TEST_F(LauncherLoader, EnvErrorsAndUnknownKeys) {
  dir.write("config/launchers/bad.yaml", "schemaVersion: 1\ncommand: [x]\nenv: {A: [1]}\n");
  dir.write("config/launchers/odd.yaml", "schemaVersion: 1\ncommand: [x]\nargz: [y]\n");
  EXPECT_TRUE(has_problem(problems("bad"), "launchers/bad.yaml", "env.A", "must be a string"));
  auto odd = load_launcher(roots(), "odd");
  ASSERT_TRUE(odd.ok());
  EXPECT_TRUE(has_problem(odd->warnings, "launchers/odd.yaml", "argz", "unknown field"));
}

TEST_F(LauncherLoader, DirectPathUsesTheFileStem) {
  dir.write("config/misc/wrap.yaml", "schemaVersion: 1\ncommand: [env]\n");
  auto launcher = load_launcher(roots(), "./misc/wrap.yaml", dir.path() / "config");
  ASSERT_TRUE(launcher.ok()) << launcher.error().message;
  EXPECT_EQ(launcher->name, "wrap");
}

}  // namespace
}  // namespace agentry::definitions
