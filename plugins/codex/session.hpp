// One attempt of the codex backend, on the instance's executor: the link to app-server
// and the protocol (initialize, thread/start or thread/resume, turn/start, then the
// turn's notifications and server requests until turn/completed). An adopting attempt
// instead reads the thread (thread/read) and follows its running turn (thread/resume), or
// reports how the turn ended while nobody was connected.
//
// The control-context methods post to the executor, or read the little state they must
// answer from at once (the waiting approvals, whether turn/start went out); everything
// else, events included, happens on the executor in order. session.cpp holds the start,
// the deadlines and the control calls, session_protocol.cpp the conversation,
// session_adoption.cpp the take-over, session_end.cpp how the attempt ends.
#pragma once

#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/value.hpp>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "agentry/plugin/cpp/host.hpp"
#include "agentry/plugin_common/runtime/event_sink.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "agentry/plugin_common/runtime/json_rpc.hpp"
#include "approvals.hpp"
#include "config.hpp"
#include "link.hpp"
#include "normalizer.hpp"
#include "sandbox.hpp"

namespace agentry::codex {

class Session : public std::enable_shared_from_this<Session> {
 public:
  // Starts the attempt; it ends with exactly one FINISHED (unless abandoned).
  static std::shared_ptr<Session> start(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor,
                                        AttemptConfig config);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // True until FINISHED is on its way to the host.
  bool running() const noexcept { return running_.load(); }

  // [control] turn/interrupt (now, or as soon as the turn has an id). Idempotent.
  void interrupt(std::string reason);
  // [control] Close the connection and leave the turn running in the app-server; FINISHED
  // {"outcome":"detached"} follows. AGENTRY_ERR_UNSUPPORTED when the turn could not go on
  // without us (stdio: the app-server is our child) or could not be found again (codex
  // has not confirmed it yet).
  agentry_status_t detach(std::string reason);
  // [control] A user message for the running turn (turn/steer).
  void send_message(std::string text);
  // [control] AGENTRY_ERR_NOT_FOUND when no request with that id waits.
  agentry_status_t answer_approval(const std::string& approval_id, bool approve);
  // [executor] The instance goes away while the attempt runs: no FINISHED, no handler
  // runs again, the app-server child is killed.
  void abandon() noexcept;

 private:
  using RpcError = plugin_common::runtime::RpcError;
  struct Final {
    std::string outcome;  // success | error | interrupted | detached
    std::string message;
  };
  struct PendingApproval {
    boost::json::value rpc_id;
    bool legacy = false;
  };

  Session(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor, AttemptConfig config);

  // --- session.cpp: the start, deadlines, control calls ----------------------------------
  void begin();
  // Codex makes no helper links (codex-linux-sandbox, ...) while its CODEX_HOME is in the
  // temp dir, and then a system bubblewrap older than 0.9 cannot start its sandbox: every
  // sandboxed command fails. We make the links codex would have made, for this child only.
  void provide_helper_links(StdioLaunch& launch);
  LinkHandlers link_handlers();
  void on_ready();
  void on_closed(std::string reason);
  void arm(boost::asio::steady_timer& timer, std::chrono::milliseconds after, void (Session::*then)());
  void on_setup_deadline();
  void on_run_deadline();
  void on_interrupt_deadline();
  void begin_interrupt(const std::string& reason, bool timeout);
  void send_interrupt();
  Final stop_outcome(const std::string& suffix) const;
  void do_detach(const std::string& reason);
  void deliver_message(std::string text);
  // Every request still waiting for a decision gets "cancel" (interrupt, teardown).
  void cancel_approvals();

  // --- session_protocol.cpp: the conversation ----------------------------------------------
  void initialize();
  void open_thread();
  void on_thread_opened(const boost::json::value* result, const RpcError* error);
  void on_turn_started(const boost::json::value* result, const RpcError* error);
  void on_turn_id(std::string id);
  void on_notification(std::string_view method, const boost::json::object& params);
  void forget_approval(const boost::json::value* request_id);
  void on_server_request(const boost::json::value& id, std::string_view method, const boost::json::object& params);

  // --- session_adoption.cpp: a turn an earlier attempt left running ------------------------
  void read_thread();
  // Which turn is this attempt's: the one it checkpointed, else (the daemon died between
  // turn/start and its answer) a turn still running, which can only be the one it sent.
  void on_thread_read(const boost::json::object& result);
  // The attempt's turn never reached codex (the daemon stopped first): send it now, as
  // the attempt would have. Not after an abort, which stops it before it starts.
  void start_unsent_turn(const std::string& status);
  // The turn ended while nobody was connected: report its items and its end as if they
  // had streamed (tools get their started and completed events).
  void import_turn(const std::string& status, const boost::json::object& turn);
  void on_reattached(const boost::json::object& result);
  void take_thread();
  // The first event of an adopting attempt (ext/detach.h).
  void adoption(const std::string& decision, const std::string& reason, const std::string& remote_status,
                const std::string& error);

  // --- session_end.cpp: the end of the attempt -------------------------------------------
  void connect_failed(const std::string& why);
  void lost_connection(const std::string& reason);
  // After the user's interrupt, a failure still ends the attempt as interrupted: the
  // user asked for it to stop, and it did.
  void fail(std::string message);
  void let_go(std::string message);
  // The outcome is decided: waiting approvals are cancelled, the link closes, and FINISHED
  // follows once it has (so no app-server of ours outlives the attempt). First one wins.
  void end(Final outcome);
  void finish() noexcept;
  void emit(const Event& event);
  void emit(uint16_t type, boost::json::object payload);

  agentry::plugin::Host& host_;
  plugin_common::runtime::Executor& executor_;
  const AttemptConfig cfg_;
  std::atomic<bool> running_{true};
  std::atomic<bool> turn_requested_{false};  // turn/start is sent
  std::mutex mutex_;                           // guards approvals_, which the control context answers from
  std::map<std::string, PendingApproval> approvals_;  // by approvalId, waiting for send_input

  // Executor only:
  plugin_common::runtime::EventSink events_;
  plugin_common::runtime::JsonRpcPeer rpc_;
  std::optional<HelperLinks> helper_links_;  // outlives the app-server that uses it
  std::shared_ptr<Link> link_;
  boost::asio::steady_timer setup_timer_, run_timer_, interrupt_timer_;
  Normalizer normalizer_;
  std::optional<Final> final_;
  std::string thread_id_, turn_id_;
  bool connected_ = false, link_closed_ = false, setup_expired_ = false, abandoned_ = false;
  bool open_sent_ = false, thread_open_ = false, turn_started_ = false;
  bool interrupting_ = false, interrupt_sent_ = false, timed_out_ = false;
  bool detached_ = false, adoption_reported_ = false;
  bool late_start_ = false;  // adopting: the attempt's turn had not reached codex, so we sent it
  std::optional<std::string> detach_pending_;  // detach asked while turn/start was in flight
  int reads_ = 0;                              // thread/read calls while adopting
  std::string adopt_turn_id_;                  // the running turn thread/read found
  std::string interrupt_reason_;
  std::deque<std::string> queued_messages_;
  int approval_serial_ = 0;
};

}  // namespace agentry::codex
