// One attempt of the subprocess backend on the instance's executor: the command as a
// runtime Child, its output through the OutputRouter, stdin writes, the timeout and the
// interrupt grace, and the FINISHED event.
//
// The control-context methods post to the executor; every event is emitted there, in order.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include <boost/asio/steady_timer.hpp>

#include "agentry/plugin/cpp/host.hpp"
#include "agentry/plugin_common/runtime/child.hpp"
#include "agentry/plugin_common/runtime/event_sink.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "config.hpp"
#include "outcome.hpp"
#include "output_router.hpp"

namespace agentry::subprocess {

class Attempt : public std::enable_shared_from_this<Attempt> {
 public:
  // Launches the command on the executor (or records why it could not); the attempt ends
  // with exactly one FINISHED event.
  static std::shared_ptr<Attempt> start(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor,
                                        AttemptSpec spec);
  Attempt(const Attempt&) = delete;
  Attempt& operator=(const Attempt&) = delete;

  // True from start() until the FINISHED event is on its way to the host.
  bool running() const noexcept { return running_.load(); }
  // [control] SIGINT to the child's process group now, SIGKILL after the grace; the
  // attempt ends "interrupted". No-op once stopping or exited.
  void interrupt(std::string reason);
  // [control] Bytes for the child's stdin (dropped once it is closed).
  void write_stdin(std::string bytes);
  // [executor] Teardown: SIGKILL to a child still running; no handler runs again.
  void abandon() noexcept;

 private:
  Attempt(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor, AttemptSpec spec);
  void begin();
  void launch();
  void stop(StopReason why, std::string reason);
  void on_exit(plugin_common::WaitStatus status);
  void emit(const Event& event) noexcept;

  plugin_common::runtime::Executor& executor_;
  const AttemptSpec spec_;
  std::atomic<bool> running_{true};

  // Executor only:
  plugin_common::runtime::EventSink events_;
  std::shared_ptr<plugin_common::runtime::Child> child_;
  boost::asio::steady_timer timeout_timer_, grace_timer_;
  OutputRouter router_;
  AttemptEnd end_;
};

}  // namespace agentry::subprocess
