#pragma once
// Telling a process apart from a later one with the same pid. A pid alone does not name
// a process for long: after a crash the old pid may be a zombie nobody reaped, or a
// stranger that got the number. On Linux, /proc/<pid>/stat gives the process's state
// and its start time (clock ticks after boot); pid and start time together name one
// process for the life of the machine.

#include <cstdint>
#include <optional>
#include <string_view>

namespace agentry::core {

/// The fields of /proc/<pid>/stat that identity needs.
struct ProcessStat {
  char state = '?';             // field 3: R, S, D, T, ..., Z (zombie), X (dead)
  std::uint64_t start_time = 0;  // field 22: when the process started, clock ticks after boot
};

/// Parses the text of /proc/<pid>/stat. Field 2, the command name, is in parentheses and
/// may itself hold spaces and ')', so the fields are counted from the last ')'. Nullopt
/// when the text is not of that shape.
std::optional<ProcessStat> parse_proc_stat(std::string_view text);

/// Reads /proc/<pid>/stat; nullopt when it cannot (no such process, or no /proc).
std::optional<ProcessStat> read_proc_stat(long pid);

/// The start time of `pid`, for controller ids; nullopt where /proc cannot tell.
std::optional<std::uint64_t> process_start_time(long pid);

/// True when `pid` names a live process: it exists (kill(pid, 0) succeeds, or fails with
/// EPERM: someone else's), it is not a zombie (state Z or X), and, when `start_time` is
/// given, it started then (otherwise the pid was reused). Where /proc cannot be read,
/// existence is all that is checked.
bool process_alive(long pid, std::optional<std::uint64_t> start_time);

}  // namespace agentry::core
