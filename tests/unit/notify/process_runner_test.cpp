#include "process/runner.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>

namespace agentry::process {
namespace {
using namespace std::chrono_literals;

TEST(ProcessRunner, RunsInTheGivenDirectoryAndKeepsItsOutput) {
  RunRequest rq;
  rq.argv = {"sh", "-c", "cat; pwd; echo oops >&2; exit 4"};
  rq.stdin_data = "in:";
  rq.cwd = std::filesystem::temp_directory_path().string();
  auto r = run_program(rq, RunLimits{});
  EXPECT_TRUE(r.started);
  ASSERT_TRUE(r.exit_code);
  EXPECT_EQ(*r.exit_code, 4);
  EXPECT_EQ(r.stdout_text, "in:" + std::filesystem::canonical(rq.cwd).string() + "\n");
  EXPECT_EQ(r.stderr_text, "oops\n");
  EXPECT_FALSE(r.error.empty());
}

TEST(ProcessRunner, CapsEachStreamAndKillsAtTheDeadline) {
  RunRequest loud;
  loud.argv = {"sh", "-c", "yes o | head -c 100000; yes e | head -c 3000 >&2"};
  RunLimits limits;
  limits.max_stdout_bytes = 1000;
  limits.max_stderr_bytes = 10;
  auto r = run_program(loud, limits);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_text.size(), 1000u);
  EXPECT_TRUE(r.stdout_truncated);
  EXPECT_EQ(r.stderr_text.size(), 10u);
  EXPECT_TRUE(r.stderr_truncated);

  RunRequest slow;
  slow.argv = {"sleep", "30"};
  limits.timeout = 300ms;
  auto s = run_program(slow, limits);
  EXPECT_TRUE(s.timed_out);
  EXPECT_FALSE(s.exit_code);
  EXPECT_LT(s.duration, 5000ms);

  RunRequest missing;
  missing.argv = {"/no/such/program"};
  auto m = run_program(missing, RunLimits{});
  EXPECT_FALSE(m.started);
  EXPECT_TRUE(m.not_startable);
}

TEST(ProcessRunner, IsDoneWhenTheProgramExitsThoughAChildKeepsItsOutputOpen) {
  RunRequest rq;
  // The background sleep inherits stdout and stderr; its pid goes to stderr for cleanup.
  rq.argv = {"sh", "-c", "sleep 30 & echo $! >&2; yes o | head -c 100000; echo; echo done"};
  RunLimits limits;
  limits.timeout = 20s;
  limits.max_stdout_bytes = 200000;
  auto r = run_program(rq, limits);
  EXPECT_FALSE(r.timed_out) << r.error;
  EXPECT_EQ(r.exit_code, 0) << r.error;
  EXPECT_EQ(r.stdout_text.size(), 100006u);  // all it wrote before it exited
  EXPECT_EQ(r.stdout_text.substr(r.stdout_text.size() - 5), "done\n");
  if (const long child = std::atol(r.stderr_text.c_str()); child > 0) ::kill(static_cast<pid_t>(child), SIGKILL);
}

}  // namespace
}  // namespace agentry::process
