#include "environments/launch.hpp"

#include <gtest/gtest.h>

#include <algorithm>

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

TEST(BubblewrapCommand, WithoutANetworkTheDaemonsSocketDirectoryIsBoundAfterTheTmpfs) {
  const auto argv = bubblewrap_command(bubblewrap(), "/w", "/tmp/home/socket/agentry.sock");
  const auto tmpfs = std::find(argv.begin(), argv.end(), "--tmpfs");
  const auto bound = std::find(argv.begin(), argv.end(), "/tmp/home/socket");
  ASSERT_NE(bound, argv.end());
  EXPECT_EQ(*(bound - 1), "--ro-bind");
  EXPECT_LT(tmpfs, bound);
  // With the host's network the agent uses the TCP URL: nothing to bind.
  const auto online = bubblewrap_command(bubblewrap("host"), "/w", "/tmp/home/socket/agentry.sock");
  EXPECT_EQ(std::find(online.begin(), online.end(), "/tmp/home/socket"), online.end());
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
  const auto result = wrap_launcher(e, launcher, "/w");
  ASSERT_TRUE(result.ok());
  const auto& wrapped = *result;
  const auto& command = wrapped.at("command").as_array();
  EXPECT_EQ(command.front().as_string(), "bwrap");
  EXPECT_EQ(command.at(command.size() - 4).as_string(), "--");
  EXPECT_EQ(command.back().as_string(), "10");
  EXPECT_EQ(wrapped.at("env").at("A").as_string(), "environment");
  EXPECT_EQ(wrapped.at("env").at("B").as_string(), "launcher");
  EXPECT_EQ(wrap_launcher(e, std::nullopt, "/w")->at("command").as_array().back().as_string(), "--");
}

TEST(CheckLaunchable, RefusesWhatWouldRunUnconfined) {
  EXPECT_TRUE(check_launchable(bubblewrap(), "subprocess", {}).ok());
  EXPECT_TRUE(check_launchable(bubblewrap(), "codex", {}).ok());
  EXPECT_TRUE(check_launchable(bubblewrap(), "codex", {{"transport", "stdio"}}).ok());

  auto container = bubblewrap();
  container.kind = "container";
  auto refused = check_launchable(container, "subprocess", {});
  ASSERT_FALSE(refused.ok());  // frozen without its container settings
  EXPECT_NE(refused.error().message.find("container settings are missing"), std::string::npos);
  container.container = core::ContainerSpec{};
  EXPECT_TRUE(check_launchable(container, "subprocess", {}).ok());
  EXPECT_TRUE(check_launchable(container, "mock", {}).ok());

  for (const char* backend : {"browser", "passive", "someone-elses"}) {
    auto r = check_launchable(bubblewrap(), backend, {});
    ASSERT_FALSE(r.ok()) << backend;
    EXPECT_EQ(r.error().details.at("reason").as_string(), "backend_not_supported");
  }
  EXPECT_FALSE(check_launchable(bubblewrap(), "codex", {{"transport", "ws"}}).ok());
  EXPECT_FALSE(check_launchable(bubblewrap(), "codex", {{"transport", json::object{{"type", "uds"}}}}).ok());
}

core::FrozenEnvironment container(core::ContainerSpec spec) {
  core::FrozenEnvironment e;
  e.name = "box";
  e.kind = "container";
  e.network = "none";
  e.container = std::move(spec);
  return e;
}

TEST(ContainerExecCommand, TheRelayThenTheEnginesExecIntoTheContainerAtTheWorkdir) {
  core::ContainerSpec spec;
  spec.engine = "podman";
  spec.engine_args = {"--runtime", "runc"};
  spec.extra_exec_args = {"--user", "1000"};
  const ContainerExec exec{"/opt/agentry", "agentry-r1", "/w/sub", "r1-a1-x", true};
  EXPECT_EQ(container_exec_command(container(spec), exec),
            (std::vector<std::string>{"/opt/agentry", "container-exec", "--marker", "r1-a1-x", "--container",
                                      "agentry-r1", "--set", "AGENTRY_CONNECT=unix:///run/agentry/agentry.sock",
                                      "--engine-argc", "11", "--", "podman", "--runtime",
                                      "runc", "exec", "-i", "--workdir", "/w/sub", "-e",
                                      "AGENTRY_CONTAINER_EXEC=r1-a1-x", "--user", "1000"}));
  // Without the daemon's socket inside, the agent keeps the URL it was given.
  const ContainerExec no_socket{"/opt/agentry", "c", "/w", "m", false};
  const auto argv = container_exec_command(container(spec), no_socket);
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--set"), 0);
  // A container environment needs its exec: never a launch on the host.
  EXPECT_FALSE(wrap_launcher(container(spec), std::nullopt, "/w").ok());
  EXPECT_TRUE(wrap_launcher(container(spec), std::nullopt, "/w", &exec).ok());
}

}  // namespace
}  // namespace agentry::environments
