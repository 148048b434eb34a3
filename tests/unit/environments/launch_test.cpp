#include "environments/launch.hpp"

#include <gtest/gtest.h>

namespace agentry::environments {
namespace {
namespace json = boost::json;

core::FrozenEnvironment bubblewrap(std::string network = "none") {
  core::FrozenEnvironment e;
  e.name = "sandbox";
  e.kind = "bubblewrap";
  e.network = std::move(network);
  e.program = "bwrap";
  return e;
}

TEST(BubblewrapCommand, TheHostReadOnlyTheCwdWritableAPrivateTmpAndNoNetwork) {
  EXPECT_EQ(bubblewrap_command(bubblewrap(), "/tmp/work"),
            (std::vector<std::string>{"bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs",
                                      "/tmp", "--bind", "/tmp/work", "/tmp/work", "--unshare-net",
                                      "--die-with-parent", "--chdir", "/tmp/work", "--"}));
}

TEST(BubblewrapCommand, MountsComeAfterTheTmpfsAndExtraArgsBeforeTheCommand) {
  auto e = bubblewrap("host");
  e.program = "/usr/bin/bwrap";
  e.mounts = {{"/home/me/.codex", "/home/me/.codex", false}, {"/srv/cache", "/cache", true}};
  e.extra_args = {"--unshare-pid"};
  EXPECT_EQ(bubblewrap_command(e, "/w"),
            (std::vector<std::string>{"/usr/bin/bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                      "--tmpfs", "/tmp", "--bind", "/w", "/w", "--bind", "/home/me/.codex",
                                      "/home/me/.codex", "--ro-bind", "/srv/cache", "/cache", "--die-with-parent",
                                      "--unshare-pid", "--chdir", "/w", "--"}));
}

TEST(WrapLauncher, TheSandboxGoesInFrontOfTheLaunchersCommandAndTheLaunchersEnvWins) {
  auto e = bubblewrap();
  e.env = {{"A", "environment"}, {"B", "environment"}};
  core::FrozenLauncher launcher{"nice", {"nice", "-n", "10"}, {{"B", "launcher"}}};
  const auto wrapped = wrap_launcher(e, launcher, "/w");
  const auto& command = wrapped.at("command").as_array();
  EXPECT_EQ(command.front().as_string(), "bwrap");
  EXPECT_EQ(command.at(command.size() - 4).as_string(), "--");
  EXPECT_EQ(command.back().as_string(), "10");
  EXPECT_EQ(wrapped.at("env").at("A").as_string(), "environment");
  EXPECT_EQ(wrapped.at("env").at("B").as_string(), "launcher");
  EXPECT_EQ(wrap_launcher(e, std::nullopt, "/w").at("command").as_array().back().as_string(), "--");
}

TEST(CheckLaunchable, RefusesWhatWouldRunUnconfined) {
  EXPECT_TRUE(check_launchable(bubblewrap(), "subprocess", {}).ok());
  EXPECT_TRUE(check_launchable(bubblewrap(), "codex", {}).ok());
  EXPECT_TRUE(check_launchable(bubblewrap(), "codex", {{"transport", "stdio"}}).ok());

  auto container = bubblewrap();
  container.kind = "container";
  auto refused = check_launchable(container, "subprocess", {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("container environments are not supported yet"), std::string::npos);

  for (const char* backend : {"mock", "browser", "passive", "someone-elses"}) {
    auto r = check_launchable(bubblewrap(), backend, {});
    ASSERT_FALSE(r.ok()) << backend;
    EXPECT_EQ(r.error().details.at("reason").as_string(), "backend_not_supported");
  }
  EXPECT_FALSE(check_launchable(bubblewrap(), "codex", {{"transport", "ws"}}).ok());
  EXPECT_FALSE(check_launchable(bubblewrap(), "codex", {{"transport", json::object{{"type", "uds"}}}}).ok());
}

}  // namespace
}  // namespace agentry::environments
