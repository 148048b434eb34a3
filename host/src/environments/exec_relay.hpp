#pragma once
// `agentry container-exec`: what a backend starts in place of its agent when the run is
// in a container. `podman exec` / `docker exec` do not pass signals on: killing the
// client leaves the agent running inside. So the relay starts the engine's exec as its
// child and
//   - passes its environment in (`-e NAME` for each variable, so values never show on
//     a command line), except the host's own (PATH, HOME, XDG_*, ...: the image has its
//     own) and the daemon's (AGENTRY_HOME, AGENTRY_STORE, ...: only the run's AGENTRY_*
//     variables go in), and marks the process inside with AGENTRY_CONTAINER_EXEC=<marker>;
//   - forwards SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1/2 to every process carrying the
//     marker (the agent and what it started: a process-group signal, inside);
//   - exits as the agent did (an exit code of 128+N for a common signal N is raised as
//     that signal, so the backend sees a kill as a kill);
//   - leaves a watchdog in a session of its own that, once the relay is gone (whatever
//     ended it, SIGKILL included), stops every process still carrying the marker.
// Processes inside a container are processes of this machine: the relay finds them in
// /proc, which needs the daemon to be able to read them (podman; docker as root).

#include <string>
#include <sys/types.h>
#include <vector>

namespace agentry::environments {

inline constexpr const char* exec_marker_variable = "AGENTRY_CONTAINER_EXEC";

struct ExecRelayArgs {
  std::string marker;
  std::string container;
  std::vector<std::string> engine_command;  // `podman [engineArgs] exec -i --workdir W -e MARK ...`
  std::vector<std::string> set_env;         // NAME=VALUE for inside, over the relay's own
  std::vector<std::string> agent_command;   // what runs inside
};

/// Parses `container-exec --marker M --container C --engine-argc N [--set NAME=VALUE]...
/// -- <N engine words> <agent command...>`; an error message when malformed. (Whether the
/// container stopped under a failed agent is the host's to say: LiveRun asks the engine.)
std::string parse_exec_relay_args(const std::vector<std::string>& args, ExecRelayArgs& out);

/// The relay's whole life; returns only when it did not re-raise a signal.
int run_exec_relay(const ExecRelayArgs& args);

/// The processes of this machine whose environment carries `marker`.
std::vector<pid_t> marked_processes(const std::string& marker);

/// The variables the relay does not pass into a container: the host's own.
bool host_only_variable(const std::string& name);

}  // namespace agentry::environments
