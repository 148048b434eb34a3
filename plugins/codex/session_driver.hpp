// The thread of one codex attempt (Session::Driver): it owns the connection to the
// app-server and all protocol state. session_driver.cpp holds the conversation,
// session_adoption.cpp the take-over of a turn an earlier attempt left running.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "connection.hpp"
#include "normalizer.hpp"
#include "sandbox.hpp"
#include "session.hpp"

namespace agentry::codex {

namespace json = boost::json;

namespace driver_detail {

inline constexpr const char* kClientVersion = "0.1.0";

struct Final {
  std::string outcome;  // success | error | interrupted
  std::string message;
};

inline json::object text_input(const std::string& text) { return json::object{{"type", "text"}, {"text", text}}; }

inline const char* transport_name(Transport t) { return t == Transport::ws ? "ws" : t == Transport::uds ? "uds" : "stdio"; }

inline const json::object* object_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

inline std::string string_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

// A Thread's status.type: active, idle, notLoaded, systemError.
inline std::string status_of(const json::object& thread) {
  const json::object* status = object_at(thread, "status");
  return status != nullptr ? string_at(*status, "type") : std::string();
}

inline std::string error_text(const json::value& error) {
  if (error.is_object()) {
    const json::object& o = error.get_object();
    if (const json::value* m = o.if_contains("message"); m != nullptr && m->is_string())
      return std::string(m->get_string());
  }
  return json::serialize(error);
}

}  // namespace driver_detail

class Session::Driver {
  using Clock = std::chrono::steady_clock;
  using Final = driver_detail::Final;
 public:
  explicit Driver(Session& s) : s_(s), cfg_(s.config_), host_(s.host_) {}

  void run();

 private:
  enum class Purpose { initialize, open_thread, start_turn, interrupt, steer, read_thread, reattach };

  // Codex makes no helper links (codex-linux-sandbox, ...) while its CODEX_HOME is in the
  // temp dir, and then a system bubblewrap older than 0.9 cannot start its sandbox: every
  // sandboxed command fails. We make the links codex would have made, for this child only.
  void provide_helper_links(StdioLaunch& launch);

  void loop();

  int poll_timeout_ms() const;

  void check_deadlines();

  // --- commands from the control context -------------------------------------------

  void drain_commands();

  void begin_interrupt(const std::string& reason, bool timeout);

  void send_interrupt();

  Final stop_outcome(const std::string& suffix) const;

  void deliver_message(std::string text);

  // Every request still waiting for a decision gets "cancel" (interrupt, teardown).
  void cancel_approvals();

  // --- messages from codex -----------------------------------------------------------

  void on_message(const std::string& text);

  void on_notification(std::string_view method, const json::object& params);

  void forget_approval(const json::value* request_id);

  void on_server_request(const json::value& id, std::string_view method, const json::object& params);

  void on_response(int64_t id, const json::object& msg);

  void on_turn_id(std::string id);

  void open_thread();

  // --- adopting a turn an earlier attempt left running ---------------------------------

  void read_thread();

  // Which turn is this attempt's: the one it checkpointed, else (the daemon died between
  // turn/start and its answer) a turn still running, which can only be the one it sent.
  void on_thread_read(const json::object& result);

  // The attempt's turn never reached codex (the daemon stopped first): send it now, as
  // the attempt would have. Not after an abort, which stops it before it starts.
  void start_unsent_turn(const std::string& status);

  // The turn ended while nobody was connected: report its items and its end as if they
  // had streamed (tools get their started and completed events).
  void import_turn(const std::string& status, const json::object& turn);

  void on_reattached(const json::object& result);

  void take_thread();

  // The first event of an adopting attempt (ext/detach.h).
  void adoption(const std::string& decision, const std::string& reason, const std::string& remote_status,
                const std::string& error);

  void lost_connection();

  // After the user's interrupt, a failure still ends the attempt as interrupted: the
  // user asked for it to stop, and it did.
  void fail(std::string message);

  void let_go(std::string message);

  // --- output --------------------------------------------------------------------------

  void request(const char* method, json::object params, Purpose purpose);

  void send(const json::object& message);

  void emit(const Event& event);
  void emit(uint16_t type, json::object payload) { emit(Event{type, 0, json::serialize(payload)}); }

  void teardown() noexcept;

  void finish() noexcept;

  Session& s_;
  const AttemptConfig& cfg_;
  agentry::plugin::Host& host_;
  std::optional<HelperLinks> helper_links_;  // outlives the app-server that uses it
  std::unique_ptr<Connection> conn_;
  Normalizer normalizer_;
  std::map<int64_t, Purpose> pending_;
  int64_t next_id_ = 0;
  std::optional<Final> final_;
  std::string thread_id_, turn_id_;
  bool open_sent_ = false, thread_open_ = false, turn_started_ = false;
  bool interrupting_ = false, interrupt_sent_ = false, timed_out_ = false;
  bool stopped_ = false, send_failed_ = false;
  bool detached_ = false, adoption_reported_ = false;
  bool late_start_ = false;    // adopting: the attempt's turn had not reached codex, so we sent it
  std::optional<std::string> detach_pending_;  // detach asked while turn/start was in flight
  int reads_ = 0;              // thread/read calls while adopting
  std::string adopt_turn_id_;  // the running turn thread/read found
  std::string interrupt_reason_;
  std::deque<std::string> queued_messages_;
  int approval_serial_ = 0;
  Clock::time_point started_, setup_deadline_;
  std::optional<Clock::time_point> timeout_at_, interrupt_deadline_;
};


}  // namespace agentry::codex
