// Runs the attempts of one backend instance on the instance's own I/O thread.
//
// A plain interface over the one Asio/Boost.Process translation unit (runner.cpp), so
// nothing else in the plugin compiles Asio. All members are called on the instance's
// control context; they return at once and leave the work to the I/O thread.
#pragma once

#include <memory>
#include <string>

#include "agentry/plugin/cpp/host.hpp"
#include "config.hpp"

namespace agentry::subprocess {

class Runner {
 public:
  explicit Runner(agentry::plugin::Host& host);
  ~Runner();  // shutdown()
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // True from start() until the attempt's FINISHED event is on its way to the host.
  bool running() const noexcept;

  // Starts the I/O thread on first use, then launches the attempt there. Every outcome,
  // a failure to launch included, ends in exactly one FINISHED event. Throws
  // std::system_error when the thread cannot be started (nothing is emitted then).
  void start(AttemptSpec spec);

  // SIGINT to the child's process group now, SIGKILL after the grace period; the attempt
  // ends "interrupted". No-op when nothing runs or a stop is already under way.
  void interrupt(std::string reason);

  // Queues bytes for the child's stdin (dropped when stdin is closed by then).
  void write_stdin(std::string bytes);

  // Kills whatever still runs, stops and joins the I/O thread. Idempotent.
  void shutdown() noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentry::subprocess
