#include "agent_processes.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "support/subprocess.hpp"

namespace agentry::integration {

namespace fs = std::filesystem;

// Pids of the live processes whose environment holds exactly `entry` ("NAME=value").
std::vector<long> processes_with_env(const std::string& entry) {
  std::vector<long> pids;
  std::error_code error;
  for (const auto& dir : fs::directory_iterator("/proc", error)) {
    const std::string name = dir.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    std::istringstream entries(test::proc_file(std::stol(name), "environ"));
    for (std::string item; std::getline(entries, item, '\0');)
      if (item == entry) {
        if (test::process_alive(std::stol(name))) pids.push_back(std::stol(name));
        break;
      }
  }
  return pids;
}

std::string command_lines(const std::vector<long>& pids) {
  std::string out;
  for (const long pid : pids) {
    std::string cmdline = test::proc_file(pid, "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    out += "  " + std::to_string(pid) + ": " + cmdline + "\n";
  }
  return out;
}

// One agent (codex or claude) behind a real daemon, with its own mock model and homes.

void expect_no_agent_left(const std::string& entry, const std::string& what) {
  std::vector<long> left = processes_with_env(entry);
  for (int i = 0; i < 50 && !left.empty(); ++i) {  // a process group being torn down
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    left = processes_with_env(entry);
  }
  EXPECT_TRUE(left.empty()) << "agent processes outlived " << what << ":\n" << command_lines(left);
  for (const long pid : left) ::kill(static_cast<pid_t>(pid), SIGKILL);
}

}  // namespace agentry::integration
