// The conversation with the app-server: the handshake, the thread and the turn, the
// turn's notifications, and the requests codex makes of us.
#include "agentry/plugin/events.h"
#include "protocol_fields.hpp"
#include "session.hpp"

namespace agentry::codex {

namespace json = boost::json;
using namespace protocol;

void Session::initialize() {
  rpc_.request("initialize",
               json::object{{"clientInfo", {{"name", "agentry"}, {"title", "agentry"}, {"version", kClientVersion}}},
                            {"capabilities", {{"experimentalApi", false}}}},
               [this](const json::value*, const RpcError* error) {
                 if (error) return fail("codex app-server refused initialize: " + error_text(*error));
                 rpc_.notify("initialized", json::object{});
                 if (interrupting_ && !cfg_.adopt) return end(stop_outcome(""));
                 if (cfg_.adopt)
                   read_thread();
                 else
                   open_thread();
               });
}

void Session::open_thread() {
  json::object params{{"cwd", cfg_.cwd}, {"approvalPolicy", cfg_.approval_policy}, {"sandbox", cfg_.sandbox}};
  if (!cfg_.model.empty()) params["model"] = cfg_.model;
  if (!cfg_.thread_config.empty()) params["config"] = cfg_.thread_config;
  open_sent_ = true;
  const char* method = "thread/start";
  if (cfg_.resume_thread_id && cfg_.fork) {
    params["threadId"] = *cfg_.resume_thread_id;
    params["ephemeral"] = true;     // the copy is never saved as a thread of its own
    params["excludeTurns"] = true;  // codex requires it of an ephemeral fork; we need only the id
    method = "thread/fork";
  } else if (cfg_.resume_thread_id) {
    params["threadId"] = *cfg_.resume_thread_id;
    params["excludeTurns"] = true;  // we need the thread, not its history
    method = "thread/resume";
  }
  rpc_.request(method, std::move(params),
               [this](const json::value* result, const RpcError* error) { on_thread_opened(result, error); });
}

void Session::on_thread_opened(const json::value* result, const RpcError* error) {
  if (error)
    return fail(cfg_.resume_thread_id
                    ? std::string(cfg_.fork ? "codex could not fork thread " : "codex could not resume thread ") +
                          *cfg_.resume_thread_id + ": " + error_text(*error)
                    : "codex could not start a thread: " + error_text(*error));
  const json::object* thread = object_field(&object_of(result), "thread");
  const json::value* thread_id = thread != nullptr ? thread->if_contains("id") : nullptr;
  if (thread_id == nullptr || !thread_id->is_string()) return fail("codex answered thread/start without a thread id");
  thread_id_ = std::string(thread_id->get_string());
  thread_open_ = true;
  normalizer_.set_thread(thread_id_);
  emit(AGENTRY_EVENT_CHECKPOINT, json::object{{"resumeToken", thread_id_}});
  if (interrupting_) return end(stop_outcome(""));
  json::object turn{{"threadId", thread_id_}, {"input", json::array{text_input(cfg_.prompt)}}};
  if (!cfg_.effort.empty()) turn["effort"] = cfg_.effort;
  rpc_.request("turn/start", std::move(turn),
               [this](const json::value* answer, const RpcError* refused) { on_turn_started(answer, refused); });
  turn_requested_.store(true);
}

void Session::on_turn_started(const json::value* result, const RpcError* error) {
  if (error) return fail("codex refused turn/start: " + error_text(*error));
  turn_started_ = true;
  const json::object* turn = object_field(&object_of(result), "turn");
  const json::value* turn_id = turn != nullptr ? turn->if_contains("id") : nullptr;
  if (turn_id != nullptr && turn_id->is_string() && turn_id_.empty()) on_turn_id(std::string(turn_id->get_string()));
}

void Session::on_turn_id(std::string id) {
  turn_id_ = std::move(id);
  turn_started_ = true;
  setup_timer_.cancel();
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

void Session::on_notification(std::string_view method, const json::object& params) {
  if (method == "serverRequest/resolved") {  // codex settled a request itself (e.g. on interrupt)
    forget_approval(params.if_contains("requestId"));
    return;
  }
  for (Event& event : normalizer_.on_notification(method, params)) emit(event);
  if (turn_id_.empty() && !normalizer_.turn_id().empty()) on_turn_id(normalizer_.turn_id());
  if (const std::optional<TurnEnd>& end_of_turn = normalizer_.turn_end()) {
    if (end_of_turn->status == "completed")
      end(timed_out_ ? stop_outcome("") : Final{"success", {}});
    else if (end_of_turn->status == "interrupted")
      end(interrupting_ ? stop_outcome("") : Final{"interrupted", "interrupted by codex"});
    else
      end(Final{"error", end_of_turn->message.empty() ? "the turn failed" : end_of_turn->message});
  }
}

void Session::forget_approval(const json::value* request_id) {
  if (request_id == nullptr) return;
  std::lock_guard lock(mutex_);
  for (auto it = approvals_.begin(); it != approvals_.end(); ++it)
    if (it->second.rpc_id == *request_id) {
      approvals_.erase(it);
      return;
    }
}

void Session::on_server_request(const json::value& id, std::string_view method, const json::object& params) {
  const json::value* item_id = params.if_contains("itemId");
  const json::object* item =
      item_id != nullptr && item_id->is_string() ? normalizer_.item(std::string(item_id->get_string())) : nullptr;
  std::optional<ApprovalAsk> ask = approval_ask(method, params, item);
  if (!ask) {
    // Every request must be answered, or the turn waits forever.
    rpc_.respond_error(id, RpcError::kMethodNotFound, "agentry does not handle " + std::string(method));
    emit(AGENTRY_EVENT_NOTICE,
         json::object{{"level", "warning"},
                      {"message", "codex asked for " + std::string(method) +
                                      ", which agentry does not support; answered with an error"}});
    return;
  }
  if (cfg_.unrestricted) {
    rpc_.respond(id, approval_result(ask->legacy, Decision::accept));
    emit(AGENTRY_EVENT_NOTICE, json::object{{"level", "info"}, {"message", "auto-approved " + ask->summary}});
    return;
  }
  if (interrupting_) return rpc_.respond(id, approval_result(ask->legacy, Decision::cancel));
  std::string approval_id =
      "codex-" + (item_id != nullptr && item_id->is_string() ? std::string(item_id->get_string())
                                                             : "request-" + json::serialize(id));
  {
    std::lock_guard lock(mutex_);
    if (approvals_.contains(approval_id)) approval_id += "-" + std::to_string(++approval_serial_);
    approvals_[approval_id] = PendingApproval{id, ask->legacy};
  }
  emit(AGENTRY_EVENT_APPROVAL_REQUEST, json::object{{"approvalId", approval_id},
                                                    {"kind", ask->kind},
                                                    {"summary", clip(ask->summary, 4096)},
                                                    {"details", std::move(ask->details)}});
}

}  // namespace agentry::codex
