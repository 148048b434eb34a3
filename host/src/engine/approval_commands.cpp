// Engine: answering the approvals a live agent waits on. The question lives with the
// process that drives the run (only it holds the backend instance). The answer is
// audited, then handed to the backend on the run's strand without waiting for it.

#include "engine/engine.hpp"
#include "engine/mutate.hpp"

#include "engine/controllers.hpp"
#include "engine/mutation_support.hpp"
#include "store/store.hpp"

namespace agentry::engine {

core::Result<ApprovalAnswer> Engine::answer_approval(const std::string& run_id, const std::string& approval_id,
                                                     const std::string& decision, const Actor& actor) {
  if (decision != "approve" && decision != "deny")
    return core::fail(core::ErrorCode::invalid_request, "decision must be \"approve\" or \"deny\"",
                      {{"field", "decision"}});
  auto run = db_.read([&](store::Transaction& c) { return detail::load_run(c, run_id); });
  if (!run) return run.failure();
  auto live = live_.find(run_id);
  if (!live) {
    if (run->status == core::RunStatus::running && controller_alive_elsewhere(run->controller_id))
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
    detail::append_audit(c, run_id, "run.approval_answered", actor,
                         {{"approvalId", approval_id}, {"decision", decision}});
    return current;
  });
  if (!audited) return audited.failure();
  if (auto taken = live->answer_approval(approval_id, decision); !taken) return taken.failure();
  return ApprovalAnswer{run_id, approval_id, decision};
}

}  // namespace agentry::engine
