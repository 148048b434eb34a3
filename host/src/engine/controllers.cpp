#include "engine/controllers.hpp"

#include "core/process_identity.hpp"

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <mutex>

#include <unistd.h>

namespace agentry::engine {
namespace {

std::atomic<bool> daemon_lock_held{false};
std::mutex member_hosts_mutex;
std::function<MemberHost(const std::string&)> member_hosts;

MemberHost host_of(const std::string& controller_id) {
  std::lock_guard lock(member_hosts_mutex);
  return member_hosts ? member_hosts(controller_id) : MemberHost::unknown;
}

}  // namespace

long controller_pid(const std::string& controller_id) {
  auto first = controller_id.find('-');
  if (first == std::string::npos) return 0;
  auto second = controller_id.find('-', first + 1);
  if (second == std::string::npos) return 0;
  return std::strtol(controller_id.substr(first + 1, second - first - 1).c_str(), nullptr, 10);
}

std::optional<std::uint64_t> controller_start_time(const std::string& controller_id) {
  // "<kind>-<pid>-<suffix>-<start time>": the fourth part, when there is one.
  std::size_t at = 0;
  for (int dash = 0; dash < 3; ++dash) {
    at = controller_id.find('-', at);
    if (at == std::string::npos) return std::nullopt;
    ++at;
  }
  if (controller_id.find('-', at) != std::string::npos) return std::nullopt;
  std::uint64_t start = 0;
  const char* begin = controller_id.data() + at;
  const char* end = controller_id.data() + controller_id.size();
  auto [ptr, ec] = std::from_chars(begin, end, start);
  if (begin == end || ec != std::errc() || ptr != end) return std::nullopt;
  return start;
}

bool controller_alive_elsewhere(const std::string& controller_id) {
  long pid = controller_pid(controller_id);
  if (pid <= 0 || pid == ::getpid()) return false;
  // Only one daemon serves a home, and this process is it: another daemon's run was left
  // by one that is gone, even if its pid now names a zombie or a stranger.
  if (holds_daemon_lock() && controller_id.rfind("daemon-", 0) == 0) return false;
  // Another member of a shared store, on another machine: its pid says nothing here.
  if (host_of(controller_id) == MemberHost::other_host) return true;
  return core::process_alive(pid, controller_start_time(controller_id));
}

void set_member_hosts(std::function<MemberHost(const std::string& controller_id)> where) {
  std::lock_guard lock(member_hosts_mutex);
  member_hosts = std::move(where);
}

bool member_on_this_host(const std::string& controller_id) {
  return host_of(controller_id) == MemberHost::this_host;
}

void set_holds_daemon_lock(bool held) { daemon_lock_held.store(held); }

bool holds_daemon_lock() { return daemon_lock_held.load(); }

std::string describe_controller(const std::string& controller_id) {
  const std::string pid = std::to_string(controller_pid(controller_id));
  if (controller_id.rfind("daemon-", 0) == 0) return "the agentry daemon (pid " + pid + ")";
  if (controller_id.rfind("cli-", 0) == 0) return "the agentry command with pid " + pid;
  return "process " + pid;
}

}  // namespace agentry::engine
