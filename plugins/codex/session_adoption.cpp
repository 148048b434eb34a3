// Taking over a turn an earlier attempt left running (ext/detach.h): finding it again,
// sending a turn that never reached codex, importing one that ended meanwhile.
#include "agentry/plugin/events.h"
#include "protocol_fields.hpp"
#include "session.hpp"

namespace agentry::codex {

namespace json = boost::json;
using namespace protocol;

void Session::read_thread() {
  open_sent_ = true;
  ++reads_;
  rpc_.request("thread/read", json::object{{"threadId", *cfg_.resume_thread_id}, {"includeTurns", true}},
               [this](const json::value* result, const RpcError* error) {
                 if (!error) return on_thread_read(object_of(result));
                 adoption("finalized", "thread_read_failed", "", error_text(*error));
                 fail("codex could not read thread " + *cfg_.resume_thread_id + ": " + error_text(*error));
               });
}

void Session::on_thread_read(const json::object& result) {
  const json::object* thread = object_field(&result, "thread");
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
    if (want.empty() ? text_field(&t, "status") == "inProgress" : text_field(&t, "id") == want) mine = &t;
  }
  const std::string& thread_id = *cfg_.resume_thread_id;
  if (mine == nullptr && cfg_.adopt_turn_id) {
    adoption("finalized", "turn_not_found", status, "");
    return fail("codex thread " + thread_id + " has no turn " + *cfg_.adopt_turn_id);
  }
  if (mine == nullptr) return start_unsent_turn(status);
  if (text_field(mine, "status") != "inProgress") return import_turn(status, *mine);
  if (status == "active") {
    // Attach to the thread's live events; no turn/start: the turn is already running.
    // Its items so far are known, so that a request codex asks again can name them.
    adopt_turn_id_ = text_field(mine, "id");
    if (const json::value* items = mine->if_contains("items"); items != nullptr && items->is_array())
      for (const json::value& item : items->get_array())
        if (item.is_object()) normalizer_.remember(item.get_object());
    rpc_.request("thread/resume", json::object{{"threadId", thread_id}, {"excludeTurns", true}},
                 [this](const json::value* answer, const RpcError* refused) {
                   if (!refused) return on_reattached(object_of(answer));
                   adoption("finalized", "thread_resume_failed", "active", error_text(*refused));
                   fail("codex could not resume thread " + *cfg_.resume_thread_id + ": " + error_text(*refused));
                 });
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

void Session::start_unsent_turn(const std::string& status) {
  if (interrupting_) {
    adoption("finalized", "aborted_after_recovery", status, "");
    return end(stop_outcome(""));
  }
  if (cfg_.prompt.empty()) {
    adoption("finalized", "insufficient_idle_evidence", status, "");
    return fail("codex thread " + *cfg_.resume_thread_id + " has no turn of this attempt, and no prompt to send");
  }
  adoption("started", "turn_not_started", status, "");
  late_start_ = true;
  open_thread();  // thread/resume, then turn/start with the attempt's prompt
}

void Session::import_turn(const std::string& status, const json::object& turn) {
  take_thread();
  adoption("imported", status == "idle" ? "remote_idle" : "remote_" + status, status, "");
  on_turn_id(text_field(&turn, "id"));
  const json::value* items = turn.if_contains("items");
  if (items != nullptr && items->is_array())
    for (const json::value& item : items->get_array()) {
      if (!item.is_object()) continue;
      const json::object params{{"threadId", thread_id_}, {"turnId", turn_id_}, {"item", item}};
      on_notification("item/started", params);
      on_notification("item/completed", params);
    }
  on_notification("turn/completed", json::object{{"threadId", thread_id_}, {"turn", turn}});
  if (!final_) fail("codex reported turn " + turn_id_ + " as " + text_field(&turn, "status"));
}

void Session::on_reattached(const json::object& result) {
  const json::object* thread = object_field(&result, "thread");
  if (thread != nullptr && status_of(*thread) != "active") {
    if (reads_ < 3) return read_thread();  // the turn ended between thread/read and thread/resume: read how
    adoption("finalized", "remote_status_unstable", status_of(*thread), "");
    return fail("codex kept reporting thread " + *cfg_.resume_thread_id + " as active, then as not active");
  }
  take_thread();
  adoption("readopted", "remote_active", "active", "");
  on_turn_id(adopt_turn_id_);  // sends turn/interrupt if the run was aborted meanwhile
}

void Session::take_thread() {
  thread_id_ = *cfg_.resume_thread_id;
  thread_open_ = true;
  normalizer_.set_thread(thread_id_);
}

void Session::adoption(const std::string& decision, const std::string& reason,
                                const std::string& remote_status, const std::string& error) {
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

}  // namespace agentry::codex
