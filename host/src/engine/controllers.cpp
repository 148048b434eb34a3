#include "engine/controllers.hpp"

#include <cerrno>
#include <cstdlib>

#include <signal.h>
#include <unistd.h>

namespace agentry::engine {

long controller_pid(const std::string& controller_id) {
  auto first = controller_id.find('-');
  if (first == std::string::npos) return 0;
  auto second = controller_id.find('-', first + 1);
  if (second == std::string::npos) return 0;
  return std::strtol(controller_id.substr(first + 1, second - first - 1).c_str(), nullptr, 10);
}

bool controller_alive_elsewhere(const std::string& controller_id) {
  long pid = controller_pid(controller_id);
  if (pid <= 0 || pid == ::getpid()) return false;
  // EPERM: the process exists but belongs to someone else.
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

std::string describe_controller(const std::string& controller_id) {
  const std::string pid = std::to_string(controller_pid(controller_id));
  if (controller_id.rfind("daemon-", 0) == 0) return "the agentry daemon (pid " + pid + ")";
  if (controller_id.rfind("cli-", 0) == 0) return "the agentry command with pid " + pid;
  return "process " + pid;
}

}  // namespace agentry::engine
