// The start of an attempt, its deadlines, and the calls of the control context.
#include "session.hpp"

#include "agentry/plugin/events.h"
#include "protocol_fields.hpp"

namespace agentry::codex {

namespace json = boost::json;
using namespace protocol;
using std::chrono::milliseconds;

Session::Session(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor, AttemptConfig config)
    : host_(host),
      executor_(executor),
      cfg_(std::move(config)),
      events_(host, "codex"),
      rpc_([this](std::string line) {
        if (!link_ || link_closed_) return;
        line.pop_back();  // the peer frames lines; the link frames messages itself
        link_->send(std::move(line));
      }),
      setup_timer_(executor.get_executor()),
      run_timer_(executor.get_executor()),
      interrupt_timer_(executor.get_executor()) {}

std::shared_ptr<Session> Session::start(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor,
                                        AttemptConfig config) {
  std::shared_ptr<Session> session(new Session(host, executor, std::move(config)));
  executor.post([session] { session->begin(); });
  return session;
}

void Session::begin() {
  arm(setup_timer_, milliseconds(cfg_.connect_timeout_ms), &Session::on_setup_deadline);
  if (cfg_.timeout_sec > 0) arm(run_timer_, std::chrono::seconds(cfg_.timeout_sec), &Session::on_run_deadline);
  rpc_.on_request([this](const json::value& id, std::string_view method, const json::value& params) {
    on_server_request(id, method, object_of(&params));
  });
  rpc_.on_notification(
      [this](std::string_view method, const json::value& params) { on_notification(method, object_of(&params)); });
  rpc_.on_noise([this](std::string_view line, std::string_view why) {
    host_.log(AGENTRY_LOG_WARNING, "codex: ignoring a message (" + std::string(why) + "): " + clip(line, 200));
  });
  try {
    if (cfg_.transport == Transport::stdio) {
      StdioLaunch launch = cfg_.stdio;
      provide_helper_links(launch);
      link_ = open_stdio(executor_.get_executor(), launch, cfg_.cwd, cfg_.shutdown_grace_ms, link_handlers());
    } else {
      link_ = open_socket(executor_.get_executor(), cfg_.transport, cfg_.socket, cfg_.connect_timeout_ms, link_handlers());
    }
  } catch (const std::exception& e) {
    connect_failed(e.what());
  }
}

void Session::provide_helper_links(StdioLaunch& launch) {
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

LinkHandlers Session::link_handlers() {
  const std::weak_ptr<Session> weak = weak_from_this();
  LinkHandlers handlers;
  handlers.ready = [weak] {
    if (auto self = weak.lock()) self->on_ready();
  };
  handlers.message = [weak](std::string text) {
    // Once the outcome is decided, what codex still says is not this attempt's any more.
    if (auto self = weak.lock(); self && !self->final_) self->rpc_.receive(text);
  };
  handlers.log = [weak](std::string line) {
    if (auto self = weak.lock()) self->host_.log(AGENTRY_LOG_DEBUG, "codex: " + line);
  };
  handlers.closed = [weak](std::string reason) {
    if (auto self = weak.lock()) self->on_closed(std::move(reason));
  };
  return handlers;
}

void Session::on_ready() {
  connected_ = true;
  if (final_) return;
  initialize();
  // The deadline passed while the socket was still connecting (its own timeout reports a
  // connection that never came; this is one that came too late).
  if (setup_expired_) on_setup_deadline();
}

void Session::on_closed(std::string reason) {
  link_closed_ = true;
  if (final_) return finish();
  if (!connected_) return connect_failed(reason);
  lost_connection(reason);
}

void Session::arm(boost::asio::steady_timer& timer, milliseconds after, void (Session::*then)()) {
  timer.expires_after(after);
  timer.async_wait([weak = weak_from_this(), then](boost::system::error_code ec) {
    if (auto self = weak.lock(); self && !ec && !self->final_) ((*self).*then)();
  });
}

void Session::on_setup_deadline() {
  if (turn_started_ || interrupting_) return;  // an interrupt has a deadline of its own
  if (!connected_) {
    setup_expired_ = true;
    return;
  }
  const std::string what = cfg_.adopt ? "let us take over the turn" : "start the turn";
  const std::string message =
      "codex app-server did not " + what + " within " + std::to_string(cfg_.connect_timeout_ms) + " ms";
  if (cfg_.adopt && !adoption_reported_) adoption("finalized", "remote_unresponsive", "", message);
  end(Final{"error", message});
}

void Session::on_run_deadline() {
  if (!interrupting_) begin_interrupt("timed out", true);  // else a user interrupt is already ending it
}

void Session::on_interrupt_deadline() {
  const std::string unconfirmed = " (codex did not confirm within " + std::to_string(cfg_.interrupt_grace_ms) + " ms)";
  if (cfg_.adopt && !adoption_reported_) adoption("finalized", "aborted_after_recovery", "", unconfirmed.substr(2));
  end(stop_outcome(unconfirmed));
}

void Session::interrupt(std::string reason) {
  executor_.post([self = shared_from_this(), reason = std::move(reason)] {
    if (!self->final_) self->begin_interrupt(reason, false);
  });
}

void Session::begin_interrupt(const std::string& reason, bool timeout) {
  if (interrupting_) return;
  interrupting_ = true;
  timed_out_ = timeout;
  interrupt_reason_ = reason;
  cancel_approvals();
  // Nothing started in codex yet. An adopting attempt goes on to find the turn it was
  // given, so that it can stop it.
  if (!thread_open_ && !open_sent_ && !cfg_.adopt) return end(stop_outcome(""));
  arm(interrupt_timer_, milliseconds(cfg_.interrupt_grace_ms), &Session::on_interrupt_deadline);
  if (!turn_id_.empty()) send_interrupt();  // else: once turn/start answers
}

void Session::send_interrupt() {
  if (interrupt_sent_) return;
  interrupt_sent_ = true;
  rpc_.request("turn/interrupt", json::object{{"threadId", thread_id_}, {"turnId", turn_id_}},
               [this](const json::value*, const RpcError* error) {
                 if (error) host_.log(AGENTRY_LOG_WARNING, "codex: turn/interrupt failed: " + error_text(*error));
               });
}

Session::Final Session::stop_outcome(const std::string& suffix) const {
  if (timed_out_) return Final{"error", "timed out after " + std::to_string(cfg_.timeout_sec) + " s" + suffix};
  return Final{"interrupted", "interrupted" + (interrupt_reason_.empty() ? "" : ": " + interrupt_reason_) + suffix};
}

agentry_status_t Session::detach(std::string reason) {
  // Only a turn codex knows of can be found again: once turn/start is sent (the session
  // lets go when codex names the turn). An adopting attempt may also let go before it
  // sends anything. Pending approvals need no answer: codex asks them again of whoever
  // resumes the thread.
  if (cfg_.transport == Transport::stdio || !(turn_requested_.load() || cfg_.adopt)) return AGENTRY_ERR_UNSUPPORTED;
  executor_.post([self = shared_from_this(), reason = std::move(reason)] {
    if (!self->final_) self->do_detach(reason);
  });
  return AGENTRY_OK;
}

void Session::do_detach(const std::string& reason) {
  const std::string message = "detached" + (reason.empty() ? "" : ": " + reason);
  // A turn/start in flight is let go of once codex names the turn, so that the turn is
  // checkpointed for whoever takes over.
  if (turn_id_.empty() && turn_requested_.load())
    detach_pending_ = message;
  else
    let_go(message);
}

void Session::send_message(std::string text) {
  executor_.post([self = shared_from_this(), text = std::move(text)]() mutable {
    if (!self->final_) self->deliver_message(std::move(text));
  });
}

void Session::deliver_message(std::string text) {
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
  rpc_.request(
      "turn/steer",
      json::object{{"threadId", thread_id_}, {"input", json::array{text_input(text)}}, {"expectedTurnId", turn_id_}},
      [this](const json::value*, const RpcError* error) {
        if (error)
          emit(AGENTRY_EVENT_NOTICE, json::object{{"level", "warning"},
                                                  {"message", "message not delivered to codex: " + error_text(*error)}});
      });
}

agentry_status_t Session::answer_approval(const std::string& approval_id, bool approve) {
  PendingApproval pending;
  {
    std::lock_guard lock(mutex_);
    const auto it = approvals_.find(approval_id);
    if (it == approvals_.end()) return AGENTRY_ERR_NOT_FOUND;
    pending = std::move(it->second);
    approvals_.erase(it);
  }
  executor_.post([self = shared_from_this(), pending = std::move(pending), approve] {
    if (!self->final_)
      self->rpc_.respond(pending.rpc_id, approval_result(pending.legacy, approve ? Decision::accept : Decision::decline));
  });
  return AGENTRY_OK;
}

void Session::cancel_approvals() {
  std::map<std::string, PendingApproval> waiting;
  {
    std::lock_guard lock(mutex_);
    waiting.swap(approvals_);
  }
  for (auto& [id, pending] : waiting) rpc_.respond(pending.rpc_id, approval_result(pending.legacy, Decision::cancel));
}

}  // namespace agentry::codex
