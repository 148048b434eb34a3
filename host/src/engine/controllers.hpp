#pragma once
// Who drives a run. A run that is running names its controller,
// "<kind>-<pid>-<suffix>-<start time>" (kind "daemon" or "cli"; ids recorded before start
// times were added have no fourth part); only that process holds the backend instance,
// so only it can interrupt the agent, and a run whose controller is gone can never finish.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace agentry::engine {

/// The pid inside a controller id, or 0 when it has none.
long controller_pid(const std::string& controller_id);

/// The process start time inside a controller id (core/process_identity.hpp), or nullopt
/// for an id without one.
std::optional<std::uint64_t> controller_start_time(const std::string& controller_id);

/// True when the controller's process is still alive and is not this process: its pid
/// exists, is not a zombie, and (for ids that carry one) started at the recorded time.
/// A daemon that holds the home's lock knows more: every other "daemon-*" controller is
/// gone, whatever its pid says, since one daemon at a time serves a home.
bool controller_alive_elsewhere(const std::string& controller_id);

/// Tells every liveness check in this process that it is the home's one daemon: `agentry
/// serve` sets it once it holds <home>/daemon.lock (cli/daemon_lock.hpp).
void set_holds_daemon_lock(bool held);
bool holds_daemon_lock();

/// Where a member of a shared store (PostgreSQL) runs, as the members' list says.
enum class MemberHost { unknown, this_host, other_host };

/// On a store several daemons share, liveness by pid means nothing for a daemon on
/// another machine: `where(controller_id)` says which controllers are members on this
/// host or on others; those on others count as alive elsewhere (their runs' leases decide,
/// engine/leases/). Unset (nullptr) on SQLite.
void set_member_hosts(std::function<MemberHost(const std::string& controller_id)> where);
/// True when the controller is a member daemon on this host, whose pid can be checked.
bool member_on_this_host(const std::string& controller_id);

/// How to reach that controller, for error messages: "the agentry daemon (pid 12)".
std::string describe_controller(const std::string& controller_id);

}  // namespace agentry::engine
