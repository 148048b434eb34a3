#include "environments/exec_relay.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace agentry::environments {
namespace {

TEST(ExecRelayArgs, SplitsTheEnginesWordsFromTheAgentsCommand) {
  ExecRelayArgs args;
  EXPECT_EQ(parse_exec_relay_args({"--marker", "m1", "--container", "box", "--set", "A=b", "--engine-argc", "3", "--", "podman", "exec", "-i", "claude", "-p", "hi"},
                                  args),
            "");
  EXPECT_EQ(args.marker, "m1");
  EXPECT_EQ(args.container, "box");
  EXPECT_EQ(args.set_env, (std::vector<std::string>{"A=b"}));
  EXPECT_EQ(args.engine_command, (std::vector<std::string>{"podman", "exec", "-i"}));
  EXPECT_EQ(args.agent_command, (std::vector<std::string>{"claude", "-p", "hi"}));
}

TEST(ExecRelayArgs, RefusesWhatItCannotRun) {
  ExecRelayArgs args;
  EXPECT_NE(parse_exec_relay_args({"--marker", "m"}, args), "");
  EXPECT_NE(parse_exec_relay_args({"--marker", "m", "--container", "c", "--engine-argc", "2", "--", "podman", "exec"},
                                  args),
            "");  // no agent command
  EXPECT_NE(parse_exec_relay_args({"--bogus", "x", "--"}, args), "");
  EXPECT_NE(parse_exec_relay_args({"--marker", "m", "--container", "c", "--engine-argc", "1", "--set", "=x", "--",
                                   "podman", "sh"},
                                  args),
            "");
}

TEST(ExecRelay, TheHostsOwnVariablesStayOutside) {
  for (const char* name : {"PATH", "HOME", "XDG_RUNTIME_DIR", "LD_PRELOAD", "SSH_AUTH_SOCK", "AGENTRY_CONTAINER_EXEC",
                           "AGENTRY_HOME", "AGENTRY_STORE", "AGENTRY_CONFIG_DIR"})
    EXPECT_TRUE(host_only_variable(name)) << name;
  for (const char* name : {"AGENTRY_RUN_ID", "AGENTRY_DAEMON_TOKEN", "ANTHROPIC_API_KEY", "TERM", "LANG"})
    EXPECT_FALSE(host_only_variable(name)) << name;
}

TEST(ExecRelay, FindsTheProcessesCarryingItsMarkerAndNoOthers) {
  const std::string marker = "test-" + std::to_string(::getpid());
  const pid_t marked = ::fork();
  if (marked == 0) {
    const std::string entry = std::string(exec_marker_variable) + "=" + marker;
    char* const argv[] = {const_cast<char*>("sleep"), const_cast<char*>("30"), nullptr};
    char* const envp[] = {const_cast<char*>(entry.c_str()), nullptr};
    ::execve("/bin/sleep", argv, envp);
    ::_exit(127);
  }
  const pid_t other = ::fork();
  if (other == 0) {
    const std::string entry = std::string(exec_marker_variable) + "=" + marker + "-longer";
    char* const argv[] = {const_cast<char*>("sleep"), const_cast<char*>("30"), nullptr};
    char* const envp[] = {const_cast<char*>(entry.c_str()), nullptr};
    ::execve("/bin/sleep", argv, envp);
    ::_exit(127);
  }
  std::vector<pid_t> found;
  for (int i = 0; i < 50 && found.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    found = marked_processes(marker);
  }
  EXPECT_EQ(found, std::vector<pid_t>{marked});
  ::kill(marked, SIGKILL);
  ::kill(other, SIGKILL);
  ::waitpid(marked, nullptr, 0);
  ::waitpid(other, nullptr, 0);
  EXPECT_TRUE(marked_processes(marker).empty());
}

}  // namespace
}  // namespace agentry::environments
