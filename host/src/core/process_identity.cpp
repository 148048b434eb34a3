#include "core/process_identity.hpp"

#include <cerrno>
#include <charconv>
#include <string>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

namespace agentry::core {
namespace {

// Whether kill(pid, 0) finds the process. EPERM: it exists but belongs to someone else.
bool pid_exists(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }

}  // namespace

std::optional<ProcessStat> parse_proc_stat(std::string_view text) {
  auto close = text.rfind(')');
  if (close == std::string_view::npos || text.find('(') > close) return std::nullopt;
  // After "(comm)": " <state> <ppid> <pgrp> ..."; the state is field 3, the start time
  // field 22, so the 1st and 20th fields after the parenthesis.
  std::string_view rest = text.substr(close + 1);
  ProcessStat stat;
  int field = 0;
  std::size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    if (i >= rest.size()) break;
    std::size_t end = rest.find(' ', i);
    if (end == std::string_view::npos) end = rest.size();
    std::string_view token = rest.substr(i, end - i);
    ++field;
    if (field == 1) {
      if (token.size() != 1) return std::nullopt;
      stat.state = token[0];
    } else if (field == 20) {
      if (!token.empty() && token.back() == '\n') token.remove_suffix(1);
      auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), stat.start_time);
      if (ec != std::errc() || ptr != token.data() + token.size()) return std::nullopt;
      return stat;
    }
    i = end;
  }
  return std::nullopt;
}

std::optional<ProcessStat> read_proc_stat(long pid) {
  if (pid <= 0) return std::nullopt;
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  // One line: 52 numeric fields and a command name of at most 64 bytes.
  std::string text(4096, '\0');
  std::size_t used = 0;
  while (used < text.size()) {
    ssize_t n = ::read(fd, text.data() + used, text.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(used);
  return parse_proc_stat(text);
}

std::optional<std::uint64_t> process_start_time(long pid) {
  auto stat = read_proc_stat(pid);
  if (!stat) return std::nullopt;
  return stat->start_time;
}

bool process_alive(long pid, std::optional<std::uint64_t> start_time) {
  if (pid <= 0 || !pid_exists(pid)) return false;
  auto stat = read_proc_stat(pid);
  // No /proc here, or it could not be read: existence is all we know (asked again, in
  // case the process ended between the two looks).
  if (!stat) return pid_exists(pid);
  if (stat->state == 'Z' || stat->state == 'X') return false;
  return !start_time || *start_time == stat->start_time;
}

}  // namespace agentry::core
