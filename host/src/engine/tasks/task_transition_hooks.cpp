#include "engine/tasks/task_transition_hooks.hpp"

#include "core/log.hpp"
#include "engine/hooks/after_exit.hpp"
#include "engine/mutate_run.hpp"
#include "engine/mutation_support.hpp"
#include "store/run_repository.hpp"
#include "store/store.hpp"

#include <boost/json.hpp>

namespace agentry::engine {
namespace json = boost::json;
namespace {

std::string status_of(const std::optional<core::Task>& task) {
  return task ? std::string(core::to_string(task->status)) : std::string();
}

bool changes(const TaskTransition& t, std::string_view field) {
  return std::find(t.changed_fields.begin(), t.changed_fields.end(), field) != t.changed_fields.end();
}

/// agent-runner's `transition`, as its module hooks read it.
json::object transition_json(const TaskTransition& t) {
  json::array changed;
  for (const auto& f : t.changed_fields) changed.emplace_back(f);
  return {{"taskId", t.task_id},
          {"source", t.source},
          {"from", t.from ? json::value(json::object{{"status", status_of(t.from)}, {"notes", t.from->notes}})
                          : json::value(nullptr)},
          {"to", json::object{{"status", core::to_string(t.to.status)},
                              {"notes", t.to.notes},
                              {"title", t.to.title},
                              {"body", t.to.body}}},
          {"tentative", true},
          {"changedFields", std::move(changed)}};
}

HookInvocation invocation_of(const TaskTransition& t, const Actor& actor) {
  const std::string from = status_of(t.from);
  const std::string to(core::to_string(t.to.status));
  // agentry's filters (task, from, to) and agent-runner's (taskId, fromStatus, toStatus,
  // source); an added task has no `from`, so a filter on it never matches.
  std::map<std::string, std::string> facts{{"task", t.task_id}, {"taskId", t.task_id}, {"to", to},
                                           {"toStatus", to},     {"source", t.source}};
  if (t.from) facts["from"] = facts["fromStatus"] = from;
  // stdin's `task` for executable hooks (docs/definitions.md "The executable contract").
  json::object task{{"id", t.task_id},
                    {"title", t.from ? t.from->title : t.to.title},
                    {"from", from},
                    {"to", to},
                    {"notes", t.from ? t.from->notes : std::string()},
                    {"newNotes", changes(t, "notes") ? json::value(t.to.notes) : json::value(nullptr)}};
  return HookInvocation{core::HookPhase::task_transition,
                        std::move(facts),
                        {{"task", std::move(task)}, {"actor", actor.name}, {"transition", transition_json(t)}},
                        t.task_id,
                        {},
                        std::nullopt,
                        std::nullopt};
}

}  // namespace

bool has_transition_hooks(const core::Run& run, std::string_view source) {
  return std::any_of(run.frozen.hooks.begin(), run.frozen.hooks.end(), [&](const core::HookSpec& h) {
    return h.phase == core::HookPhase::task_transition && core::judges_task_source(h, source);
  });
}

HookPhaseResult run_transition_hooks(const core::Run& run, const TaskTransition& t, const Actor& actor,
                                     HookJobs& jobs, HookServices services) {
  HookJobs::Scope scope(jobs, run.id);
  services.cancelled = scope.cancelled();
  return run_hooks(run, invocation_of(t, actor), services);
}

core::Failure refuse_transition(store::Store& db, events::EventBus& bus, const std::string& run_id,
                                const TaskTransition& t, const HookPhaseResult& hooks, const Actor& actor) {
  const std::string from = status_of(t.from);
  const std::string to(core::to_string(t.to.status));
  auto recorded = detail::mutate_run<bool>(db, bus, run_id, [&](store::Transaction& c) -> core::Result<bool> {
    auto fresh = detail::load_run(c, run_id);
    if (!fresh) return fresh.failure();
    record_hook_results(c, *fresh, hooks);
    detail::append_audit(c, run_id, "task.transition_refused", actor,
                         {{"taskId", t.task_id},
                          {"source", t.source},
                          {"from", t.from ? json::value(from) : json::value(nullptr)},
                          {"to", to},
                          {"reason", *hooks.stop}});
    detail::touch(*fresh);
    c.runs().update(*fresh);
    return true;
  });
  if (!recorded) return recorded.failure();
  const std::string what = t.source == "task-add"            ? "task '" + t.task_id + "' may not be added"
                           : t.source == "task-append-notes" ? "notes may not be appended to task '" + t.task_id + "'"
                                                             : "task '" + t.task_id + "' may not become " + to;
  json::object details{{"runId", run_id}, {"taskId", t.task_id}, {"reason", "hook_refused"}, {"source", t.source},
                       {"to", to}};
  if (t.from) details["from"] = from;
  return core::fail(core::ErrorCode::conflict, what + ": " + *hooks.stop, std::move(details));
}

void record_void_transition_hooks(store::Store& db, events::EventBus& bus, const std::string& run_id,
                                  const HookPhaseResult& hooks) {
  if (!hooks.any()) return;
  auto recorded = detail::mutate_run<bool>(db, bus, run_id, [&](store::Transaction& c) -> core::Result<bool> {
    auto fresh = detail::load_run(c, run_id);
    if (!fresh) return false;
    if (record_hook_results(c, *fresh, hooks)) c.runs().update(*fresh);
    return true;
  });
  if (!recorded)
    core::log_warn("cannot record taskTransition hooks", {{"runId", run_id}, {"error", recorded.error().message}});
}

}  // namespace agentry::engine
