#include "session.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <system_error>
#include <vector>

#include "agentry/plugin/events.h"
#include "agentry/plugin_common/child_process.hpp"
#include "connection.hpp"
#include "normalizer.hpp"
#include "sandbox.hpp"

namespace agentry::codex {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

constexpr const char* kClientVersion = "0.1.0";

struct Final {
  std::string outcome;  // success | error | interrupted
  std::string message;
};

json::object text_input(const std::string& text) { return json::object{{"type", "text"}, {"text", text}}; }

const char* transport_name(Transport t) { return t == Transport::ws ? "ws" : t == Transport::uds ? "uds" : "stdio"; }

const json::object* object_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

std::string string_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

// A Thread's status.type: active, idle, notLoaded, systemError.
std::string status_of(const json::object& thread) {
  const json::object* status = object_at(thread, "status");
  return status != nullptr ? string_at(*status, "type") : std::string();
}

std::string error_text(const json::value& error) {
  if (error.is_object()) {
    const json::object& o = error.get_object();
    if (const json::value* m = o.if_contains("message"); m != nullptr && m->is_string())
      return std::string(m->get_string());
  }
  return json::serialize(error);
}

}  // namespace

// The attempt's thread: owns the connection and all protocol state.
class Session::Driver {
 public:
  explicit Driver(Session& s) : s_(s), cfg_(s.config_), host_(s.host_) {}

  void run() {
    started_ = Clock::now();
    if (cfg_.timeout_sec > 0) timeout_at_ = started_ + std::chrono::seconds(cfg_.timeout_sec);
    setup_deadline_ = started_ + milliseconds(cfg_.connect_timeout_ms);
    try {
      if (cfg_.transport == Transport::stdio) {
        StdioLaunch launch = cfg_.stdio;
        provide_helper_links(launch);
        conn_ = open_stdio(launch, cfg_.cwd, cfg_.shutdown_grace_ms);
      } else {
        conn_ = open_socket(cfg_.transport, cfg_.socket, cfg_.connect_timeout_ms);
      }
      request("initialize",
              json::object{{"clientInfo", {{"name", "agentry"}, {"title", "agentry"}, {"version", kClientVersion}}},
                           {"capabilities", {{"experimentalApi", false}}}},
              Purpose::initialize);
      loop();
    } catch (const std::exception& e) {
      if (cfg_.adopt && !adoption_reported_) adoption("finalized", "remote_unreachable", "", e.what());
      if (!final_) final_ = Final{"error", std::string("codex backend: ") + e.what()};
    }
    teardown();
    if (!stopped_)
      finish();
    else
      s_.running_.store(false);
  }

 private:
  enum class Purpose { initialize, open_thread, start_turn, interrupt, steer, read_thread, reattach };

  // Codex makes no helper links (codex-linux-sandbox, ...) while its CODEX_HOME is in the
  // temp dir, and then a system bubblewrap older than 0.9 cannot start its sandbox: every
  // sandboxed command fails. We make the links codex would have made, for this child only.
  void provide_helper_links(StdioLaunch& launch) {
    if (cfg_.sandbox == "danger-full-access" || !codex_makes_no_helper_links(launch.env)) return;
    try {
      helper_links_.emplace(launch.codex_binary, temp_dir_of(launch.env));
      host_.log(AGENTRY_LOG_INFO, "codex: CODEX_HOME " + codex_home_of(launch.env) +
                                      " is in the temp dir, where codex links no sandbox helper; linked it in " +
                                      helper_links_->dir());
      launch.env = with_path_prefix(std::move(launch.env), helper_links_->dir());
    } catch (const std::exception& e) {
      host_.log(AGENTRY_LOG_WARNING,
                std::string("codex: ") + e.what() + "; codex's sandbox may not start with an old system bubblewrap");
    }
  }

  void loop() {
    while (!final_) {
      pollfd fds[3] = {{conn_->fd(), POLLIN, 0}, {conn_->log_fd(), POLLIN, 0}, {s_.wake_fd_, POLLIN, 0}};
      const int n = ::poll(fds, 3, poll_timeout_ms());
      if (n < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
      if (n > 0 && (fds[2].revents & POLLIN) != 0) drain_commands();
      if (final_) break;
      if (n > 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
        for (const std::string& line : conn_->read_log()) host_.log(AGENTRY_LOG_DEBUG, "codex: " + line);
      if (n > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
        Incoming in = conn_->read_some();
        for (const std::string& message : in.messages) {
          on_message(message);
          if (final_) break;
        }
        if (in.closed && !final_) lost_connection();
      }
      check_deadlines();
    }
  }

  int poll_timeout_ms() const {
    auto next = Clock::now() + milliseconds(1000);
    if (!turn_started_ && setup_deadline_ < next) next = setup_deadline_;
    if (timeout_at_ && *timeout_at_ < next) next = *timeout_at_;
    if (interrupt_deadline_ && *interrupt_deadline_ < next) next = *interrupt_deadline_;
    const auto left = std::chrono::duration_cast<milliseconds>(next - Clock::now()).count();
    return left < 0 ? 0 : static_cast<int>(left) + 1;
  }

  void check_deadlines() {
    if (final_) return;
    const auto now = Clock::now();
    if (!turn_started_ && !interrupting_ && now >= setup_deadline_) {
      const std::string what = cfg_.adopt ? "let us take over the turn" : "start the turn";
      const std::string message =
          "codex app-server did not " + what + " within " + std::to_string(cfg_.connect_timeout_ms) + " ms";
      if (cfg_.adopt && !adoption_reported_) adoption("finalized", "remote_unresponsive", "", message);
      final_ = Final{"error", message};
    }
    else if (timeout_at_ && now >= *timeout_at_) {
      timeout_at_.reset();  // once; poll_timeout_ms() must not keep waking for it
      if (!interrupting_) begin_interrupt("timed out", true);  // else a user interrupt is already ending it
    }
    else if (interrupt_deadline_ && now >= *interrupt_deadline_) {
      const std::string unconfirmed = " (codex did not confirm within " + std::to_string(cfg_.interrupt_grace_ms) + " ms)";
      if (cfg_.adopt && !adoption_reported_) adoption("finalized", "aborted_after_recovery", "", unconfirmed.substr(2));
      final_ = stop_outcome(unconfirmed);
    }
  }

  // --- commands from the control context -------------------------------------------

  void drain_commands() {
    uint64_t count = 0;
    [[maybe_unused]] const ssize_t ignored = ::read(s_.wake_fd_, &count, sizeof count);
    std::deque<Command> commands;
    {
      std::lock_guard lock(s_.mutex_);
      commands.swap(s_.commands_);
    }
    for (Command& c : commands) {
      switch (c.kind) {
        case Command::Kind::interrupt:
          begin_interrupt(c.text, false);
          break;
        case Command::Kind::detach:
          // A turn/start in flight is let go of once codex names the turn, so that the
          // turn is checkpointed for whoever takes over.
          if (turn_id_.empty() && s_.turn_requested_.load())
            detach_pending_ = "detached" + (c.text.empty() ? "" : ": " + c.text);
          else
            let_go("detached" + (c.text.empty() ? "" : ": " + c.text));
          break;
        case Command::Kind::message:
          deliver_message(std::move(c.text));
          break;
        case Command::Kind::reply:
          send(json::object{{"id", c.rpc_id}, {"result", c.result}});
          break;
        case Command::Kind::stop:
          stopped_ = true;
          if (!final_) final_ = Final{"error", "stopped"};
          break;
      }
    }
  }

  void begin_interrupt(const std::string& reason, bool timeout) {
    if (interrupting_) return;
    interrupting_ = true;
    timed_out_ = timeout;
    interrupt_reason_ = reason;
    cancel_approvals();
    // Nothing started in codex yet. An adopting attempt goes on to find the turn it was
    // given, so that it can stop it.
    if (!thread_open_ && !open_sent_ && !cfg_.adopt) {
      final_ = stop_outcome("");
      return;
    }
    interrupt_deadline_ = Clock::now() + milliseconds(cfg_.interrupt_grace_ms);
    if (!turn_id_.empty()) send_interrupt();  // else: once turn/start answers
  }

  void send_interrupt() {
    if (interrupt_sent_) return;
    interrupt_sent_ = true;
    request("turn/interrupt", json::object{{"threadId", thread_id_}, {"turnId", turn_id_}}, Purpose::interrupt);
  }

  Final stop_outcome(const std::string& suffix) const {
    if (timed_out_) return Final{"error", "timed out after " + std::to_string(cfg_.timeout_sec) + " s" + suffix};
    return Final{"interrupted", "interrupted" + (interrupt_reason_.empty() ? "" : ": " + interrupt_reason_) + suffix};
  }

  void deliver_message(std::string text) {
    if (interrupting_) {
      emit(AGENTRY_EVENT_NOTICE,
           json::object{{"level", "warning"}, {"message", "message not delivered: the turn is stopping"}});
      return;
    }
    if (turn_id_.empty()) {
      queued_messages_.push_back(std::move(text));
      return;
    }
    // turn/steer joins the running turn; turn/start would do the same while the turn is
    // active but would open a new turn if it had just ended.
    request(
        "turn/steer",
        json::object{{"threadId", thread_id_}, {"input", json::array{text_input(text)}}, {"expectedTurnId", turn_id_}},
        Purpose::steer);
  }

  // Every request still waiting for a decision gets "cancel" (interrupt, teardown).
  void cancel_approvals() {
    std::map<std::string, PendingApproval> waiting;
    {
      std::lock_guard lock(s_.mutex_);
      waiting.swap(s_.approvals_);
    }
    for (auto& [id, pending] : waiting)
      send(json::object{{"id", pending.rpc_id}, {"result", approval_result(pending.legacy, Decision::cancel)}});
  }

  // --- messages from codex -----------------------------------------------------------

  void on_message(const std::string& text) {
    boost::system::error_code ec;
    json::value value = json::parse(text, ec);
    if (ec || !value.is_object()) {
      host_.log(AGENTRY_LOG_WARNING, "codex: ignoring a message that is not a JSON object: " + clip(text, 200));
      return;
    }
    json::object& msg = value.get_object();
    const json::value* method = msg.if_contains("method");
    json::object no_params;
    const json::value* params_value = msg.if_contains("params");
    const json::object& params =
        params_value != nullptr && params_value->is_object() ? params_value->get_object() : no_params;
    // Server requests carry both "method" and "id", and their ids count from 0 like ours:
    // only "method" tells them apart from responses.
    if (method != nullptr && method->is_string()) {
      if (const json::value* id = msg.if_contains("id"); id != nullptr && !id->is_null())
        on_server_request(*id, method->get_string(), params);
      else
        on_notification(method->get_string(), params);
    } else if (const json::value* id = msg.if_contains("id"); id != nullptr && id->is_int64()) {
      on_response(id->get_int64(), msg);
    } else {
      host_.log(AGENTRY_LOG_WARNING, "codex: ignoring an unrecognised message: " + clip(text, 200));
    }
  }

  void on_notification(std::string_view method, const json::object& params) {
    if (method == "serverRequest/resolved") {  // codex settled a request itself (e.g. on interrupt)
      forget_approval(params.if_contains("requestId"));
      return;
    }
    for (Event& event : normalizer_.on_notification(method, params)) emit(event);
    if (turn_id_.empty() && !normalizer_.turn_id().empty()) on_turn_id(normalizer_.turn_id());
    if (const std::optional<TurnEnd>& end = normalizer_.turn_end()) {
      if (end->status == "completed")
        final_ = timed_out_ ? stop_outcome("") : Final{"success", {}};
      else if (end->status == "interrupted")
        final_ = interrupting_ ? stop_outcome("") : Final{"interrupted", "interrupted by codex"};
      else
        final_ = Final{"error", end->message.empty() ? "the turn failed" : end->message};
    }
  }

  void forget_approval(const json::value* request_id) {
    if (request_id == nullptr) return;
    std::lock_guard lock(s_.mutex_);
    for (auto it = s_.approvals_.begin(); it != s_.approvals_.end(); ++it)
      if (it->second.rpc_id == *request_id) {
        s_.approvals_.erase(it);
        return;
      }
  }

  void on_server_request(const json::value& id, std::string_view method, const json::object& params) {
    const json::value* item_id = params.if_contains("itemId");
    const json::object* item =
        item_id != nullptr && item_id->is_string() ? normalizer_.item(std::string(item_id->get_string())) : nullptr;
    std::optional<ApprovalAsk> ask = approval_ask(method, params, item);
    if (!ask) {
      // Every request must be answered, or the turn waits forever.
      send(json::object{{"id", id},
                        {"error", {{"code", -32601}, {"message", "agentry does not handle " + std::string(method)}}}});
      emit(AGENTRY_EVENT_NOTICE,
           json::object{{"level", "warning"},
                        {"message", "codex asked for " + std::string(method) +
                                        ", which agentry does not support; answered with an error"}});
      return;
    }
    if (cfg_.unrestricted) {
      send(json::object{{"id", id}, {"result", approval_result(ask->legacy, Decision::accept)}});
      emit(AGENTRY_EVENT_NOTICE, json::object{{"level", "info"}, {"message", "auto-approved " + ask->summary}});
      return;
    }
    if (interrupting_) {
      send(json::object{{"id", id}, {"result", approval_result(ask->legacy, Decision::cancel)}});
      return;
    }
    std::string approval_id =
        "codex-" + (item_id != nullptr && item_id->is_string() ? std::string(item_id->get_string())
                                                               : "request-" + json::serialize(id));
    {
      std::lock_guard lock(s_.mutex_);
      if (s_.approvals_.contains(approval_id)) approval_id += "-" + std::to_string(++approval_serial_);
      s_.approvals_[approval_id] = PendingApproval{id, ask->legacy};
    }
    emit(AGENTRY_EVENT_APPROVAL_REQUEST, json::object{{"approvalId", approval_id},
                                                      {"kind", ask->kind},
                                                      {"summary", clip(ask->summary, 4096)},
                                                      {"details", std::move(ask->details)}});
  }

  void on_response(int64_t id, const json::object& msg) {
    const auto it = pending_.find(id);
    if (it == pending_.end()) return;
    const Purpose purpose = it->second;
    pending_.erase(it);
    const json::value* error = msg.if_contains("error");
    const json::value* result_value = msg.if_contains("result");
    const json::object empty;
    const json::object& result =
        result_value != nullptr && result_value->is_object() ? result_value->get_object() : empty;
    const bool failed = error != nullptr && !error->is_null();
    switch (purpose) {
      case Purpose::initialize:
        if (failed) return fail("codex app-server refused initialize: " + error_text(*error));
        send(json::object{{"method", "initialized"}});
        if (interrupting_ && !cfg_.adopt) {
          final_ = stop_outcome("");
          return;
        }
        if (cfg_.adopt)
          read_thread();
        else
          open_thread();
        break;
      case Purpose::read_thread:
        if (failed) {
          adoption("finalized", "thread_read_failed", "", error_text(*error));
          return fail("codex could not read thread " + *cfg_.resume_thread_id + ": " + error_text(*error));
        }
        on_thread_read(result);
        break;
      case Purpose::reattach:
        if (failed) {
          adoption("finalized", "thread_resume_failed", "active", error_text(*error));
          return fail("codex could not resume thread " + *cfg_.resume_thread_id + ": " + error_text(*error));
        }
        on_reattached(result);
        break;
      case Purpose::open_thread: {
        if (failed)
          return fail(cfg_.resume_thread_id
                          ? std::string(cfg_.fork ? "codex could not fork thread " : "codex could not resume thread ") +
                                *cfg_.resume_thread_id + ": " + error_text(*error)
                          : "codex could not start a thread: " + error_text(*error));
        const json::value* thread = result.if_contains("thread");
        const json::value* thread_id =
            thread != nullptr && thread->is_object() ? thread->get_object().if_contains("id") : nullptr;
        if (thread_id == nullptr || !thread_id->is_string())
          return fail("codex answered thread/start without a thread id");
        thread_id_ = std::string(thread_id->get_string());
        thread_open_ = true;
        normalizer_.set_thread(thread_id_);
        emit(AGENTRY_EVENT_CHECKPOINT, json::object{{"resumeToken", thread_id_}});
        if (interrupting_) {
          final_ = stop_outcome("");
          return;
        }
        json::object turn{{"threadId", thread_id_}, {"input", json::array{text_input(cfg_.prompt)}}};
        if (!cfg_.effort.empty()) turn["effort"] = cfg_.effort;
        request("turn/start", std::move(turn), Purpose::start_turn);
        s_.turn_requested_.store(true);
        break;
      }
      case Purpose::start_turn: {
        if (failed) return fail("codex refused turn/start: " + error_text(*error));
        turn_started_ = true;
        const json::value* turn = result.if_contains("turn");
        const json::value* turn_id =
            turn != nullptr && turn->is_object() ? turn->get_object().if_contains("id") : nullptr;
        if (turn_id != nullptr && turn_id->is_string() && turn_id_.empty())
          on_turn_id(std::string(turn_id->get_string()));
        break;
      }
      case Purpose::interrupt:
        if (failed) host_.log(AGENTRY_LOG_WARNING, "codex: turn/interrupt failed: " + error_text(*error));
        break;
      case Purpose::steer:
        if (failed)
          emit(
              AGENTRY_EVENT_NOTICE,
              json::object{{"level", "warning"}, {"message", "message not delivered to codex: " + error_text(*error)}});
        break;
    }
  }

  void on_turn_id(std::string id) {
    turn_id_ = std::move(id);
    turn_started_ = true;
    normalizer_.set_turn(turn_id_);
    // The turn is this attempt's: a later process that takes the attempt over looks for it
    // (an adopted turn is checkpointed too, unless it was found by its checkpoint).
    if (!cfg_.adopt || late_start_ || !cfg_.adopt_turn_id)
      emit(AGENTRY_EVENT_CHECKPOINT, json::object{{"resumeToken", thread_id_}, {"turnId", turn_id_}});
    if (detach_pending_) return let_go(*detach_pending_);
    if (interrupting_) return send_interrupt();
    std::deque<std::string> queued;
    queued.swap(queued_messages_);
    for (std::string& text : queued) deliver_message(std::move(text));
  }

  void open_thread() {
    json::object params{{"cwd", cfg_.cwd}, {"approvalPolicy", cfg_.approval_policy}, {"sandbox", cfg_.sandbox}};
    if (!cfg_.model.empty()) params["model"] = cfg_.model;
    if (!cfg_.thread_config.empty()) params["config"] = cfg_.thread_config;
    open_sent_ = true;
    if (cfg_.resume_thread_id && cfg_.fork) {
      params["threadId"] = *cfg_.resume_thread_id;
      params["ephemeral"] = true;     // the copy is never saved as a thread of its own
      params["excludeTurns"] = true;  // codex requires it of an ephemeral fork; we need only the id
      request("thread/fork", std::move(params), Purpose::open_thread);
    } else if (cfg_.resume_thread_id) {
      params["threadId"] = *cfg_.resume_thread_id;
      params["excludeTurns"] = true;  // we need the thread, not its history
      request("thread/resume", std::move(params), Purpose::open_thread);
    } else {
      request("thread/start", std::move(params), Purpose::open_thread);
    }
  }

  // --- adopting a turn an earlier attempt left running ---------------------------------

  void read_thread() {
    open_sent_ = true;
    ++reads_;
    request("thread/read", json::object{{"threadId", *cfg_.resume_thread_id}, {"includeTurns", true}},
            Purpose::read_thread);
  }

  // Which turn is this attempt's: the one it checkpointed, else (the daemon died between
  // turn/start and its answer) a turn still running, which can only be the one it sent.
  void on_thread_read(const json::object& result) {
    const json::object* thread = object_at(result, "thread");
    const std::string status = thread != nullptr ? status_of(*thread) : std::string();
    const json::value* turns_value = thread != nullptr ? thread->if_contains("turns") : nullptr;
    const json::array no_turns;
    const json::array& turns = turns_value != nullptr && turns_value->is_array() ? turns_value->get_array() : no_turns;
    // A re-read (the turn ended between thread/read and thread/resume) looks for the turn
    // the first read found.
    const std::string want = cfg_.adopt_turn_id ? *cfg_.adopt_turn_id : adopt_turn_id_;
    const json::object* mine = nullptr;
    for (const json::value& turn : turns) {
      if (!turn.is_object()) continue;
      const json::object& t = turn.get_object();
      if (want.empty() ? string_at(t, "status") == "inProgress" : string_at(t, "id") == want) mine = &t;
    }
    const std::string& thread_id = *cfg_.resume_thread_id;
    if (mine == nullptr && cfg_.adopt_turn_id) {
      adoption("finalized", "turn_not_found", status, "");
      return fail("codex thread " + thread_id + " has no turn " + *cfg_.adopt_turn_id);
    }
    if (mine == nullptr) return start_unsent_turn(status);
    if (string_at(*mine, "status") != "inProgress") return import_turn(status, *mine);
    if (status == "active") {
      // Attach to the thread's live events; no turn/start: the turn is already running.
      // Its items so far are known, so that a request codex asks again can name them.
      adopt_turn_id_ = string_at(*mine, "id");
      if (const json::value* items = mine->if_contains("items"); items != nullptr && items->is_array())
        for (const json::value& item : items->get_array())
          if (item.is_object()) normalizer_.remember(item.get_object());
      request("thread/resume", json::object{{"threadId", thread_id}, {"excludeTurns", true}}, Purpose::reattach);
      return;
    }
    // The app-server lost the turn (it restarted, or failed) before it ended.
    const std::string reason = status == "notLoaded"     ? "remote_not_loaded"
                               : status == "systemError" ? "remote_system_error"
                                                         : "remote_turn_lost";
    adoption("finalized", reason, status, "");
    fail("the codex turn was lost: the app-server reports thread " + thread_id + " as " + status +
         " with the turn unfinished");
  }

  // The attempt's turn never reached codex (the daemon stopped first): send it now, as
  // the attempt would have. Not after an abort, which stops it before it starts.
  void start_unsent_turn(const std::string& status) {
    if (interrupting_) {
      adoption("finalized", "aborted_after_recovery", status, "");
      final_ = stop_outcome("");
      return;
    }
    if (cfg_.prompt.empty()) {
      adoption("finalized", "insufficient_idle_evidence", status, "");
      return fail("codex thread " + *cfg_.resume_thread_id + " has no turn of this attempt, and no prompt to send");
    }
    adoption("started", "turn_not_started", status, "");
    late_start_ = true;
    open_thread();  // thread/resume, then turn/start with the attempt's prompt
  }

  // The turn ended while nobody was connected: report its items and its end as if they
  // had streamed (tools get their started and completed events).
  void import_turn(const std::string& status, const json::object& turn) {
    take_thread();
    adoption("imported", status == "idle" ? "remote_idle" : "remote_" + status, status, "");
    on_turn_id(string_at(turn, "id"));
    const json::value* items = turn.if_contains("items");
    if (items != nullptr && items->is_array())
      for (const json::value& item : items->get_array()) {
        if (!item.is_object()) continue;
        const json::object params{{"threadId", thread_id_}, {"turnId", turn_id_}, {"item", item}};
        on_notification("item/started", params);
        on_notification("item/completed", params);
      }
    on_notification("turn/completed", json::object{{"threadId", thread_id_}, {"turn", turn}});
    if (!final_) fail("codex reported turn " + turn_id_ + " as " + string_at(turn, "status"));
  }

  void on_reattached(const json::object& result) {
    const json::object* thread = object_at(result, "thread");
    if (thread != nullptr && status_of(*thread) != "active") {
      if (reads_ < 3) return read_thread();  // the turn ended between thread/read and thread/resume: read how
      adoption("finalized", "remote_status_unstable", status_of(*thread), "");
      return fail("codex kept reporting thread " + *cfg_.resume_thread_id + " as active, then as not active");
    }
    take_thread();
    adoption("readopted", "remote_active", "active", "");
    on_turn_id(adopt_turn_id_);  // sends turn/interrupt if the run was aborted meanwhile
  }

  void take_thread() {
    thread_id_ = *cfg_.resume_thread_id;
    thread_open_ = true;
    normalizer_.set_thread(thread_id_);
  }

  // The first event of an adopting attempt (ext/detach.h).
  void adoption(const std::string& decision, const std::string& reason, const std::string& remote_status,
                const std::string& error) {
    if (adoption_reported_) return;
    adoption_reported_ = true;
    json::object detail{{"decision", decision},
                        {"reason", reason},
                        {"remoteStatus", remote_status.empty() ? json::value() : json::value(remote_status)},
                        {"transportType", transport_name(cfg_.transport)}};
    if (!error.empty()) detail["error"] = clip(error, 4096);
    std::string message;
    if (decision == "readopted")
      message = "took over the codex turn that was still running on thread " + *cfg_.resume_thread_id;
    else if (decision == "imported")
      message = "the codex turn ended while agentry was not connected; its result is recorded from the thread";
    else if (decision == "started")
      message = "the turn had not reached codex when agentry stopped; sending its prompt now";
    else
      message = "cannot take over the codex turn (" + reason + (error.empty() ? "" : ": " + error) + ")";
    emit(AGENTRY_EVENT_NOTICE, json::object{{"level", decision == "finalized" ? "warning" : "info"},
                                            {"message", message},
                                            {"adoption", std::move(detail)}});
  }

  void lost_connection() {
    const std::string reason = conn_->end_reason();
    if (cfg_.adopt && !adoption_reported_) adoption("finalized", "remote_unreachable", "", reason);
    if (interrupting_)
      final_ = stop_outcome(" (" + reason + ")");
    else
      final_ = Final{"error", (turn_started_ ? "the turn did not finish: " : "") + reason};
  }

  // After the user's interrupt, a failure still ends the attempt as interrupted: the
  // user asked for it to stop, and it did.
  void fail(std::string message) {
    if (final_) return;
    final_ = interrupting_ && !timed_out_ ? stop_outcome(" (" + message + ")") : Final{"error", std::move(message)};
  }

  void let_go(std::string message) {
    if (final_) return;
    detached_ = true;
    final_ = Final{"detached", std::move(message)};
  }

  // --- output --------------------------------------------------------------------------

  void request(const char* method, json::object params, Purpose purpose) {
    const int64_t id = next_id_++;
    pending_[id] = purpose;
    send(json::object{{"method", method}, {"id", id}, {"params", std::move(params)}});
  }

  void send(const json::object& message) {
    if (!conn_ || send_failed_) return;
    try {
      conn_->send(json::serialize(message));
    } catch (const std::exception& e) {
      // The read side reports the closed connection with the better reason.
      send_failed_ = true;
      host_.log(AGENTRY_LOG_WARNING, std::string("codex: ") + e.what());
    }
  }

  void emit(const Event& event) {
    if (stopped_) return;
    const bool ephemeral = (event.flags & AGENTRY_EVENT_FLAG_EPHEMERAL) != 0;
    const agentry_status_t status = host_.emit_with_retry(event.type, event.flags, event.payload,
                                                          ephemeral ? milliseconds(2000) : milliseconds(30000));
    if (status != AGENTRY_OK)
      host_.log(AGENTRY_LOG_WARNING, "codex: event of type " + std::to_string(event.type) + " dropped: emit returned " +
                                         std::to_string(status));
  }
  void emit(uint16_t type, json::object payload) { emit(Event{type, 0, json::serialize(payload)}); }

  void teardown() noexcept {
    try {
      if (!detached_) cancel_approvals();  // detached: the turn goes on, and may ask again
    } catch (...) {
    }
    if (conn_) conn_->close();
  }

  void finish() noexcept {
    try {
      const Final f = final_.value_or(Final{"error", "codex backend: ended without an outcome"});
      json::object payload{{"outcome", f.outcome}};
      if (!f.message.empty()) payload["message"] = clip(f.message, 8192);
      if (!thread_id_.empty()) payload["threadId"] = thread_id_;
      if (!turn_id_.empty()) payload["turnId"] = turn_id_;
      if (detached_) payload["transportType"] = transport_name(cfg_.transport);
      const std::string text = json::serialize(payload);
      s_.running_.store(false);  // the host may start() again once it has FINISHED
      host_.emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, text, milliseconds(60000));
    } catch (...) {
      s_.running_.store(false);
      host_.emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL,
                            R"({"outcome":"error","message":"codex backend: out of memory"})");
    }
  }

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

Session::Session(agentry::plugin::Host& host, AttemptConfig config) : host_(host), config_(std::move(config)) {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

Session::~Session() {
  join();
  ::close(wake_fd_);
}

void Session::start() {
  running_.store(true);
  try {
    thread_ = std::thread([this] { main(); });
  } catch (...) {
    running_.store(false);
    throw;
  }
}

void Session::main() noexcept {
  plugin_common::block_sigpipe_on_this_thread();  // a dead app-server's stdin gives EPIPE
  Driver driver(*this);
  driver.run();
}

void Session::post(Command command) {
  {
    std::lock_guard lock(mutex_);
    commands_.push_back(std::move(command));
  }
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t ignored = ::write(wake_fd_, &one, sizeof one);
}

void Session::interrupt(std::string reason) { post(Command{Command::Kind::interrupt, std::move(reason), {}, {}}); }

agentry_status_t Session::detach(std::string reason) {
  // Only a turn codex knows of can be found again: once turn/start is sent (the driver
  // lets go when codex names the turn). An adopting attempt may also let go before it
  // sends anything. Pending approvals need no answer: codex asks them again of whoever
  // resumes the thread.
  if (config_.transport == Transport::stdio || !(turn_requested_.load() || config_.adopt))
    return AGENTRY_ERR_UNSUPPORTED;
  post(Command{Command::Kind::detach, std::move(reason), {}, {}});
  return AGENTRY_OK;
}

void Session::send_message(std::string text) { post(Command{Command::Kind::message, std::move(text), {}, {}}); }

agentry_status_t Session::answer_approval(const std::string& approval_id, bool approve) {
  PendingApproval pending;
  {
    std::lock_guard lock(mutex_);
    const auto it = approvals_.find(approval_id);
    if (it == approvals_.end()) return AGENTRY_ERR_NOT_FOUND;
    pending = std::move(it->second);
    approvals_.erase(it);
  }
  post(Command{Command::Kind::reply,
               {},
               pending.rpc_id,
               approval_result(pending.legacy, approve ? Decision::accept : Decision::decline)});
  return AGENTRY_OK;
}

void Session::join() noexcept {
  if (!thread_.joinable()) return;
  if (running_.load()) post(Command{Command::Kind::stop, {}, {}, {}});
  thread_.join();
}

}  // namespace agentry::codex
