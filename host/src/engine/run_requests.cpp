// Engine: commands for a run another member drives. Only the member holding the run's
// lease holds its agent, so a command that needs the agent (an abort, an approval's
// answer) is recorded in the store, in the same write as its audit record, and that
// member carries it out (engine/leases/run_inbox.hpp). The caller gets the answer a
// single daemon gives: the command is accepted, and the run shows its effect once the
// agent has heard it.

#include "engine/engine.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "store/run_request_repository.hpp"
#include "store/transaction.hpp"

#include <boost/json.hpp>

namespace agentry::engine {
namespace json = boost::json;
namespace {

std::string text_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

void Engine::ask_owner(store::Transaction& c, const std::string& run_id, std::string kind, json::object payload) {
  store::RunRequest request{0, run_id, std::move(kind), json::serialize(payload), core::now_iso8601()};
  c.run_requests().insert(request);
  c.wake("requests");  // the owner looks at once, not at its next poll
}

void Engine::carry_out(const store::RunRequest& request) {
  json::error_code ec;
  auto parsed = json::parse(request.payload_json, ec);
  const json::object payload = !ec && parsed.is_object() ? parsed.as_object() : json::object{};
  if (request.kind == "abort") {
    const std::string reason = text_at(payload, "reason");
    hook_jobs_.cancel_run(request.run_id, reason);
    if (live_.abort(request.run_id, reason)) return;
    // No live session here (it ended, or this member took the run over and ended it):
    // the store decides, as for an abort on a single daemon.
    auto settled = abort(request.run_id, reason, Actor{text_at(payload, "actor")});
    if (!settled && settled.error().code != core::ErrorCode::conflict)
      core::log_warn("an abort another member accepted could not be carried out",
                     {{"runId", request.run_id}, {"error", settled.error().message}});
    return;
  }
  if (request.kind == "approval") {
    const std::string approval = text_at(payload, "approvalId");
    auto live = live_.find(request.run_id);
    auto answered = live ? live->answer_approval(approval, text_at(payload, "decision"))
                         : core::Result<void>(core::fail(core::ErrorCode::conflict, "no live session here"));
    if (!answered)
      core::log_warn("an approval answer another member accepted found no attempt waiting",
                     {{"runId", request.run_id}, {"approvalId", approval}, {"error", answered.error().message}});
    return;
  }
  core::log_warn("ignoring a request of an unknown kind", {{"runId", request.run_id}, {"kind", request.kind}});
}

}  // namespace agentry::engine
