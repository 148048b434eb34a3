// One attempt of the pi backend on the instance's executor: pi in RPC mode as a child,
// commands answered by id ({"type":"response"}), and its events turned into agentry
// events by PiStream. A prompt runs until agent_end; a follow-up message is the next prompt.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "agentry/plugin/cpp/host.hpp"
#include "agentry/plugin_common/runtime/attempt_ending.hpp"
#include "agentry/plugin_common/runtime/child.hpp"
#include "agentry/plugin_common/runtime/event_sink.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "agentry/plugin_common/runtime/follow_ups.hpp"
#include "agentry/plugin_common/runtime/side_answer.hpp"
#include "launch.hpp"
#include "stream.hpp"

namespace agentry::pi {

class Session : public std::enable_shared_from_this<Session> {
 public:
  static std::shared_ptr<Session> start(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor,
                                        Launch launch);
  // A question about the run (ext/ask.h): pi forks the run's session file into a scratch
  // session dir (removed at the end), answers with read-only tools, and the answer goes to
  // answer_ask() instead of the timeline. The run's session file is never written.
  static std::shared_ptr<Session> ask(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor,
                                      Launch launch, std::string ask_id);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // True until FINISHED is on its way to the host.
  bool running() const noexcept { return ending_.running(); }
  // [control] A follow-up message: the next prompt once this one ends.
  agentry_status_t send_message(std::string text);
  // [control] abort now; the process group is stopped after the grace.
  void interrupt(std::string reason);
  // [executor] Teardown: FINISHED (interrupted) unless sent, the process group killed.
  void abandon() noexcept;

 private:
  // What a command's response says: success, and `data` or `error`.
  using Answer = std::function<void(bool ok, const boost::json::object& response)>;

  Session(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor, Launch launch);
  void begin();
  // argv with where this attempt's conversation lives: a question's fork or ephemeral session.
  std::vector<std::string> argv_with_session();
  void emit(const plugin_common::runtime::Event& event);
  void command(boost::json::object command, Answer answer);
  void on_line(const std::string& line);
  void opened();
  void prompt(std::string text);
  void prompt_ended();
  void on_exit(plugin_common::WaitStatus status);
  // Where the end goes: the question's answer or FINISHED, the scratch session gone first.
  void deliver(const std::string& outcome, const std::string& message, std::optional<int> exit_code) noexcept;

  agentry::plugin::Host& host_;
  plugin_common::runtime::Executor& executor_;
  const Launch launch_;

  // Executor only:
  plugin_common::runtime::EventSink events_;
  std::shared_ptr<plugin_common::runtime::Child> child_;
  PiStream stream_;
  std::map<int64_t, Answer> waiting_;
  int64_t next_id_ = 1;
  bool prompting_ = false, interrupted_ = false;

  plugin_common::runtime::FollowUps follow_ups_;
  std::optional<plugin_common::runtime::SideAnswer> question_;  // this session answers a question
  std::string scratch_dir_;  // a question's forked session, removed when it ends
  // Last: it refers to events_, follow_ups_ and child_.
  plugin_common::runtime::AttemptEnding ending_;
};

}  // namespace agentry::pi
