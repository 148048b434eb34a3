// The conversation with the app-server: connecting, commands from the control context,
// messages from codex, output and the end of the attempt.
#include "session_driver.hpp"

#include <poll.h>

#include <cerrno>
#include <cstring>

#include "agentry/plugin/events.h"

namespace agentry::codex {

namespace json = boost::json;
using namespace driver_detail;
using std::chrono::milliseconds;

void Session::Driver::run() {
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

void Session::Driver::provide_helper_links(StdioLaunch& launch) {
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

void Session::Driver::loop() {
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

int Session::Driver::poll_timeout_ms() const {
  auto next = Clock::now() + milliseconds(1000);
  if (!turn_started_ && setup_deadline_ < next) next = setup_deadline_;
  if (timeout_at_ && *timeout_at_ < next) next = *timeout_at_;
  if (interrupt_deadline_ && *interrupt_deadline_ < next) next = *interrupt_deadline_;
  const auto left = std::chrono::duration_cast<milliseconds>(next - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left) + 1;
}

void Session::Driver::check_deadlines() {
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

void Session::Driver::drain_commands() {
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

void Session::Driver::begin_interrupt(const std::string& reason, bool timeout) {
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

void Session::Driver::send_interrupt() {
  if (interrupt_sent_) return;
  interrupt_sent_ = true;
  request("turn/interrupt", json::object{{"threadId", thread_id_}, {"turnId", turn_id_}}, Purpose::interrupt);
}

Final Session::Driver::stop_outcome(const std::string& suffix) const {
  if (timed_out_) return Final{"error", "timed out after " + std::to_string(cfg_.timeout_sec) + " s" + suffix};
  return Final{"interrupted", "interrupted" + (interrupt_reason_.empty() ? "" : ": " + interrupt_reason_) + suffix};
}

void Session::Driver::deliver_message(std::string text) {
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

void Session::Driver::cancel_approvals() {
  std::map<std::string, PendingApproval> waiting;
  {
    std::lock_guard lock(s_.mutex_);
    waiting.swap(s_.approvals_);
  }
  for (auto& [id, pending] : waiting)
    send(json::object{{"id", pending.rpc_id}, {"result", approval_result(pending.legacy, Decision::cancel)}});
}

void Session::Driver::on_message(const std::string& text) {
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

void Session::Driver::on_notification(std::string_view method, const json::object& params) {
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

void Session::Driver::forget_approval(const json::value* request_id) {
  if (request_id == nullptr) return;
  std::lock_guard lock(s_.mutex_);
  for (auto it = s_.approvals_.begin(); it != s_.approvals_.end(); ++it)
    if (it->second.rpc_id == *request_id) {
      s_.approvals_.erase(it);
      return;
    }
}

void Session::Driver::on_server_request(const json::value& id, std::string_view method, const json::object& params) {
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

void Session::Driver::on_response(int64_t id, const json::object& msg) {
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

void Session::Driver::on_turn_id(std::string id) {
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

void Session::Driver::open_thread() {
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

}  // namespace agentry::codex
