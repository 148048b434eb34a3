// One attempt of the acp backend: the agent process and the ACP conversation with it,
// on the instance's executor. initialize -> session/new (or session/load on a resume) ->
// session/prompt, once per message; the agent's updates become events as they arrive.
//
// The control-context methods only post to the executor (or read the small state the
// mutex guards, to answer at once); every event is emitted on the executor, in order.
#pragma once

#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "agentry/plugin/cpp/host.hpp"
#include "agentry/plugin_common/runtime/attempt_ending.hpp"
#include "agentry/plugin_common/runtime/child.hpp"
#include "agentry/plugin_common/runtime/event_sink.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "agentry/plugin_common/runtime/follow_ups.hpp"
#include "agentry/plugin_common/runtime/json_rpc.hpp"
#include "agentry/plugin_common/runtime/side_answer.hpp"
#include "launch.hpp"
#include "translator.hpp"

namespace agentry::acp {

class Client : public std::enable_shared_from_this<Client> {
 public:
  static std::shared_ptr<Client> start(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor,
                                       Launch launch);
  // A question about the run (ext/ask.h): a fork of its session where the agent offers
  // session/fork, else a new session whose prompt holds what the host knows of the run. The
  // answer goes to answer_ask() instead of the timeline; the agent may use no tool.
  static std::shared_ptr<Client> ask(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor,
                                     Launch launch, std::string ask_id);
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // True until FINISHED is on its way to the host.
  bool running() const noexcept { return ending_.running(); }

  // [control] A follow-up message, sent as the next prompt once the current one ends.
  agentry_status_t send_message(std::string text);
  // [control] An approval answer: AGENTRY_ERR_NOT_FOUND for an approvalId not waiting.
  agentry_status_t answer_approval(const std::string& approval_id, bool approve);
  // [control] session/cancel now; the process group is terminated after the grace.
  void interrupt(std::string reason);
  // [executor] Teardown: FINISHED (interrupted) unless sent, the child killed, no handler runs again.
  void abandon() noexcept;

 private:
  Client(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor, Launch launch);

  void begin();
  void initialize();
  void open_session(const boost::json::value& init_result);
  void new_session(std::string notice);
  void session_ready(std::string session_id);
  void prompt(std::string text);
  void prompt_ended(const boost::json::value* result, const plugin_common::runtime::RpcError* error);
  void on_request(const boost::json::value& id, std::string_view method, const boost::json::value& params);
  void on_notification(std::string_view method, const boost::json::value& params);
  void on_exit(plugin_common::WaitStatus status);
  void do_interrupt(const std::string& reason);
  void cancel_approvals();
  // An event for the timeline, or, for a question, the text of its answer.
  void emit(const Event& event);
  std::string failure(const std::string& what, const plugin_common::runtime::RpcError* error) const;

  agentry::plugin::Host& host_;
  plugin_common::runtime::Executor& executor_;
  const Launch launch_;

  // Executor only:
  plugin_common::runtime::EventSink events_;
  std::shared_ptr<plugin_common::runtime::Child> child_;
  plugin_common::runtime::JsonRpcPeer rpc_;
  Translator translator_;
  std::string session_id_;
  bool loading_ = false;        // session/load replays history as updates: not news
  bool prompting_ = false;
  bool interrupted_ = false;
  bool authenticated_ = false;
  struct WaitingApproval {
    boost::json::value request_id;  // the agent's session/request_permission
    boost::json::value params;      // its options, to pick the answer from
  };
  std::map<std::string, WaitingApproval> approvals_;  // by approvalId
  std::optional<plugin_common::runtime::SideAnswer> question_;  // this client answers a question

  plugin_common::runtime::FollowUps follow_ups_;
  std::mutex mutex_;  // guards the approval ids the control context checks
  std::set<std::string> open_approval_ids_;
  // Last: it refers to events_, follow_ups_ and child_.
  plugin_common::runtime::AttemptEnding ending_;
};

}  // namespace agentry::acp
