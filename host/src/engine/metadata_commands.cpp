// Engine: name, note, pin, backend session and group: metadata that never changes
// what the run does, only how it is shown, resumed or grouped.

#include "engine/engine.hpp"
#include "engine/mutate.hpp"

#include "core/group_id.hpp"
#include "core/ids.hpp"
#include "engine/dependencies/dependency_checks.hpp"
#include "engine/mutation_support.hpp"
#include "store/transaction.hpp"
#include "core/json_strings.hpp"

namespace agentry::engine {
using core::Run;
namespace json = boost::json;
namespace {

}  // namespace

core::Result<Run> Engine::set_name(const std::string& run_id, std::optional<std::string> name, const Actor& actor) {
  return mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (run->name == name) return run;
    run->name = name;
    detail::save_with_audit(c, *run, "run.renamed", actor, {{"name", core::text_or_null(name)}});
    return run;
  });
}

core::Result<Run> Engine::set_note(const std::string& run_id, std::optional<std::string> note, const Actor& actor) {
  return mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (run->note == note) return run;
    run->note = note;
    // Audit stays compact: whether a note exists and its size, not its text.
    detail::save_with_audit(c, *run, "run.note_set", actor,
                            {{"present", note.has_value()}, {"length", note ? note->size() : 0}});
    return run;
  });
}

core::Result<Run> Engine::set_pinned(const std::string& run_id, bool pinned, const Actor& actor) {
  return mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (run->pinned == pinned) return run;
    run->pinned = pinned;
    detail::save_with_audit(c, *run, "run.pinned_set", actor, {{"pinned", pinned}});
    return run;
  });
}

core::Result<Run> Engine::set_backend_session(const std::string& run_id, std::optional<std::string> session_id,
                                              const Actor& actor) {
  return mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto allowed = detail::check_allowed(core::Operation::set_backend_session, *run, "set the backend session of");
        !allowed)
      return allowed.failure();
    if (run->backend_session_id == session_id) return run;
    run->backend_session_id = session_id;
    detail::save_with_audit(c, *run, session_id ? "run.backend_session_set" : "run.backend_session_cleared", actor,
                            {{"backendSessionId", core::text_or_null(session_id)}});
    return run;
  });
}

core::Result<Run> Engine::set_group(const std::string& run_id, std::optional<std::string> group_id,
                                    const Actor& actor) {
  if (group_id) {
    auto normalized = core::normalize_group_id(*group_id);
    if (!normalized)
      return core::fail(core::ErrorCode::invalid_request, "runGroupId must be " + std::string(core::group_id_rule),
                        {{"field", "runGroupId"}});
    group_id = std::move(*normalized);
  }
  return mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    // Clearing returns the run to its singleton group, named after the run itself.
    std::string next = group_id.value_or(run->id);
    if (run->run_group_id == next) return run;
    std::string previous = run->run_group_id;
    run->run_group_id = next;
    detail::save_with_audit(c, *run, "run.group_set", actor, {{"runGroupId", next}, {"previous", previous}});
    // Runs waiting on the new group now wait on this run too: refuse (roll back) a move
    // that makes a run wait on itself.
    if (auto ok = detail::check_no_cycle(c, run->id); !ok) return ok.failure();
    return run;
  });
}

}  // namespace agentry::engine
