// One attempt of the subprocess backend: its child, streams and timers. The functions
// run on the I/O thread of `ioc`; attempt.cpp is the plugin's one Asio-heavy TU, and this
// header keeps Asio out of its includers.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "agentry/plugin/cpp/host.hpp"
#include "config.hpp"
#include "outcome.hpp"

namespace boost::asio {
class io_context;
}

namespace agentry::subprocess {

class Attempt;

// Creates the attempt, launches the command (or records why it could not) and schedules
// its supervision. The attempt ends with exactly one FINISHED event; `running` turns false
// just before it. Returns nullptr when even that setup failed (FINISHED already sent).
std::shared_ptr<Attempt> begin_attempt(boost::asio::io_context& ioc, agentry::plugin::Host& host, AttemptSpec spec,
                                       std::atomic<bool>& running);

// SIGINT to the child's process group, SIGKILL after the grace; no-op once stopping or exited.
void stop_attempt(Attempt& attempt, StopReason why, std::string reason);

// Queues bytes for the child's stdin (dropped once stdin is closed).
void write_attempt_stdin(Attempt& attempt, std::string bytes);

// SIGKILL to a child still running; closes the pipes.
void kill_attempt(Attempt& attempt) noexcept;

}  // namespace agentry::subprocess
