// Engine: answering the approvals a live agent waits on. Only the process that drives
// the run holds the backend instance; the questions are kept in the store too, so that
// every member of a shared store shows them and takes answers, which it passes to that
// process (run_requests.cpp). The answer is audited, then handed to the backend on the
// run's strand without waiting for it.

#include "engine/engine.hpp"
#include "engine/mutate.hpp"

#include "engine/controllers.hpp"
#include "engine/leases/run_leases.hpp"
#include "engine/mutation_support.hpp"
#include "store/approval_repository.hpp"
#include "store/store.hpp"

#include <algorithm>

namespace agentry::engine {

core::Result<ApprovalAnswer> Engine::answer_approval(const std::string& run_id, const std::string& approval_id,
                                                     const std::string& decision, const Actor& actor) {
  if (decision != "approve" && decision != "deny")
    return core::fail(core::ErrorCode::invalid_request, "decision must be \"approve\" or \"deny\"",
                      {{"field", "decision"}});
  bool elsewhere = false, leased = false;
  auto run = db_.read([&](store::Transaction& c) -> core::Result<core::Run> {
    auto found = detail::load_run(c, run_id);
    if (found && found->status == core::RunStatus::running) {
      elsewhere = driven_elsewhere(c, *found, config_.controller_id, db_.shared());
      leased = controller_lease(c, *found).has_value();
    }
    return found;
  });
  if (!run) return run.failure();
  auto live = live_.find(run_id);
  if (!live && elsewhere && db_.shared() && leased) {
    // Another member drives it: the answer is taken here, and that member hands it to
    // the agent (run_requests.cpp). The question stops being pending at once.
    auto recorded = mutate<core::Run>(run_id, [&](store::Transaction& c) -> core::Result<core::Run> {
      auto current = detail::load_run(c, run_id);
      if (!current) return current.failure();
      if (!c.approvals().remove(run_id, approval_id))
        return core::fail(core::ErrorCode::not_found,
                          "run " + run_id + " is not waiting on approval '" + approval_id + "'",
                          {{"approvalId", approval_id}});
      current->pending_approval_count = std::max(0, current->pending_approval_count - 1);
      detail::save_with_audit(c, *current, "run.approval_answered", actor,
                              {{"approvalId", approval_id}, {"decision", decision}});
      ask_owner(c, run_id, "approval", {{"approvalId", approval_id}, {"decision", decision}});
      return current;
    });
    if (!recorded) return recorded.failure();
    return ApprovalAnswer{run_id, approval_id, decision};
  }
  if (!live) {
    if (elsewhere)
      return core::fail(core::ErrorCode::conflict,
                        "run " + run_id + " is driven by " + describe_controller(run->controller_id) +
                            "; answer its approvals there",
                        {{"controllerId", run->controller_id}});
    return core::fail(core::ErrorCode::not_found,
                      "run " + run_id + " is not waiting on approval '" + approval_id + "' (no live attempt)",
                      {{"approvalId", approval_id}});
  }
  if (!live->is_waiting_on(approval_id))
    return core::fail(core::ErrorCode::not_found, "run " + run_id + " is not waiting on approval '" + approval_id + "'",
                      {{"approvalId", approval_id}});
  // The answer is recorded first, so a failure the backend reports later follows it.
  auto audited = mutate<core::Run>(run_id, [&](store::Transaction& c) -> core::Result<core::Run> {
    auto current = detail::load_run(c, run_id);
    if (!current) return current.failure();
    if (c.approvals().remove(run_id, approval_id))
      current->pending_approval_count = std::max(0, current->pending_approval_count - 1);
    // Saved, not only audited: the run's summary counts the questions still waiting.
    detail::save_with_audit(c, *current, "run.approval_answered", actor,
                            {{"approvalId", approval_id}, {"decision", decision}});
    return current;
  });
  if (!audited) return audited.failure();
  if (auto taken = live->answer_approval(approval_id, decision); !taken) return taken.failure();
  return ApprovalAnswer{run_id, approval_id, decision};
}

}  // namespace agentry::engine
