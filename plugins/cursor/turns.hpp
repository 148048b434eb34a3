// One attempt of the cursor backend on the instance's executor: cursor-agent runs once per
// turn (print mode has no input channel), a follow-up message is the next turn of the
// same chat (--resume), and the attempt ends when no message waits.
#pragma once

#include <memory>
#include <string>

#include <boost/asio/steady_timer.hpp>

#include "agentry/plugin/cpp/host.hpp"
#include "agentry/plugin_common/runtime/attempt_ending.hpp"
#include "agentry/plugin_common/runtime/child.hpp"
#include "agentry/plugin_common/runtime/event_sink.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "agentry/plugin_common/runtime/follow_ups.hpp"
#include "launch.hpp"
#include "stream.hpp"

namespace agentry::cursor {

class Turns : public std::enable_shared_from_this<Turns> {
 public:
  static std::shared_ptr<Turns> start(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor,
                                      Launch launch);
  Turns(const Turns&) = delete;
  Turns& operator=(const Turns&) = delete;

  // True until FINISHED is on its way to the host.
  bool running() const noexcept { return ending_.running(); }
  // [control] A follow-up message: the next turn once this one ends.
  agentry_status_t send_message(std::string text);
  // [control] SIGTERM to the turn's process group, SIGKILL after the grace.
  void interrupt(std::string reason);
  // [executor] Teardown: FINISHED (interrupted) unless sent, the process group killed.
  void abandon() noexcept;

 private:
  Turns(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor, Launch launch);
  void run_turn(std::string prompt);
  void on_line(const std::string& line);
  void on_exit(plugin_common::WaitStatus status);

  agentry::plugin::Host& host_;
  plugin_common::runtime::Executor& executor_;
  const Launch launch_;

  // Executor only:
  plugin_common::runtime::EventSink events_;
  std::shared_ptr<plugin_common::runtime::Child> child_;
  TurnStream stream_;
  std::string chat_;
  boost::asio::steady_timer after_result_;
  bool interrupted_ = false;

  plugin_common::runtime::FollowUps follow_ups_;
  // Last: it refers to events_, follow_ups_ and child_. A turn's process ends by itself
  // (print mode reads no stdin), so nothing here concludes early or winds a child down.
  plugin_common::runtime::AttemptEnding ending_;
};

}  // namespace agentry::cursor
