// Agent processes that outlive their test: found by an environment entry only the test's
// agents carry (their HOME), reported as a test failure and killed.
#pragma once

#include <string>
#include <vector>

namespace agentry::integration {

// Pids of the live processes whose environment holds exactly `entry` ("NAME=value").
std::vector<long> processes_with_env(const std::string& entry);

// "  <pid>: <command line>" for each pid.
std::string command_lines(const std::vector<long>& pids);

// Fails the test for every process still running with `entry` after a short grace (a process
// group being torn down), saying they outlived `what`, and kills them.
void expect_no_agent_left(const std::string& entry, const std::string& what = "the daemon");

}  // namespace agentry::integration
