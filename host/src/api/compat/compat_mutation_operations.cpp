// agent-runner's mutations on our operations. Its answers say whether anything changed
// (`changed`) where ours refuse or answer the run: each method reads the run before and
// after, and never makes ours do what theirs would have answered "unchanged" to.

#include "api/compat/compat_dto.hpp"
#include "api/compat/compat_operations.hpp"

#include <functional>

namespace agentry::api::compat {
namespace json = boost::json;
using core::Result;
namespace {

const json::value& member(const json::object& run, std::string_view key) {
  static const json::value null;
  const auto* v = run.if_contains(key);
  return v ? *v : null;
}

Result<json::object> read_run(const CompatContext& ctx, const OperationRequest& r, const std::string& id) {
  auto native = call_native(ctx, "runs.get", r, {{"runId", id}});
  if (!native) return native.failure();
  return std::move(native->at("run").as_object());
}

/// Their params checked against `allowed` (always with `target`), the run's id.
Result<std::pair<JsonBody, std::string>> addressed(const OperationRequest& r,
                                                   std::initializer_list<std::string_view> allowed) {
  if (auto ok = only_keys(r, std::vector<std::string_view>(allowed)); !ok) return ok.failure();
  auto id = target_of(r);
  if (!id) return id.failure();
  return std::pair<JsonBody, std::string>{JsonBody(r.params), *id};
}

/// Our params: theirs without `target`, with `runId`.
json::object native_params(const OperationRequest& r, const std::string& id) {
  json::object out{{"runId", id}};
  for (const auto& [key, value] : r.params)
    if (key != "target") out[key] = value;
  return out;
}

using ResultOf = std::function<json::object(const json::object& before, const json::object& after, bool changed)>;

/// A run setting whose answer is `{result: ...}` with `changed`: ours runs (unless
/// `unchanged` says theirs would not have changed anything), the result is made from the
/// run before and after.
Operation setting(CompatContext& ctx, std::initializer_list<std::string_view> allowed, const char* native_name,
                  std::function<bool(const json::object& before, const json::object& params)> unchanged,
                  ResultOf result) {
  std::vector<std::string_view> keys(allowed);
  return [&ctx, keys, native_name, unchanged, result](const OperationRequest& r) -> Result<OperationResult> {
    if (auto ok = only_keys(r, keys); !ok) return ok.failure();
    auto id = target_of(r);
    if (!id) return id.failure();
    auto before = read_run(ctx, r, *id);
    if (!before) return before.failure();
    if (unchanged && unchanged(*before, r.params))
      return OperationResult{json::object{{"result", result(*before, *before, false)}}};
    auto after = call_native(ctx, native_name, r, native_params(r, *id));
    if (!after) return after.failure();
    return OperationResult{json::object{{"result", result(*before, after->at("run").as_object(), true)}}};
  };
}

/// A command answered by the run: `{run: RunDetail}`.
Operation run_command(CompatContext& ctx, std::initializer_list<std::string_view> allowed, const char* native_name,
                      std::function<Result<json::object>(const OperationRequest&, const std::string&)> params = {}) {
  std::vector<std::string_view> keys(allowed);
  return [&ctx, keys, native_name, params](const OperationRequest& r) -> Result<OperationResult> {
    if (auto ok = only_keys(r, keys); !ok) return ok.failure();
    auto id = target_of(r);
    if (!id) return id.failure();
    json::object ours;
    if (params) {
      auto built = params(r, *id);
      if (!built) return built.failure();
      ours = std::move(*built);
    } else {
      ours = native_params(r, *id);
    }
    auto after = call_native(ctx, native_name, r, std::move(ours));
    if (!after) return after.failure();
    return OperationResult{json::object{{"run", ref_detail(after->at("run").as_object(), facts_of(ctx))}}};
  };
}

bool same(const json::object& before, std::string_view key, const json::object& params, std::string_view param) {
  const auto* wanted = params.if_contains(param);
  return member(before, key) == (wanted ? *wanted : json::value(nullptr));
}

/// Their schedule input `{at|delay|cron, timezone?, mode?, continueOnFailure?}` nested
/// under `schedule`, as our flat fields beside the run id.
Result<json::object> with_flat_schedule(const OperationRequest& r, const std::string& id) {
  json::object out{{"runId", id}};
  const auto* schedule = r.params.if_contains("schedule");
  if (!schedule || schedule->is_null()) return out;
  if (!schedule->is_object())
    return core::fail(core::ErrorCode::invalid_request, "'schedule' must be an object", {{"field", "schedule"}});
  for (const auto& [key, value] : schedule->as_object()) out[key] = value;
  return out;
}

/// A task method's answer `{task}` in theirs, also when ours finishes later (a
/// taskTransition hook runs off the request workers).
Result<OperationResult> task_answer(Result<OperationResult> native) {
  if (!native) return native.failure();
  auto translate = [](OperationResult done) -> Result<OperationResult> {
    auto& body = done.body.as_object();
    if (auto* task = body.if_contains("task"); task && task->is_object())
      return OperationResult{json::object{{"task", ref_task(task->as_object())}}};
    return OperationResult{std::move(done.body)};
  };
  if (native->blocking) {
    OperationResult later;
    later.blocking = [blocking = std::move(native->blocking), translate]() -> Result<OperationResult> {
      auto done = finish(blocking());
      if (!done) return done.failure();
      return translate(std::move(*done));
    };
    return later;
  }
  return translate(std::move(*native));
}

Operation task_method(CompatContext& ctx, const char* name, std::initializer_list<std::string_view> allowed) {
  std::vector<std::string_view> keys(allowed);
  return [&ctx, name, keys](const OperationRequest& r) -> Result<OperationResult> {
    if (auto ok = only_keys(r, keys); !ok) return ok.failure();
    auto id = target_of(r);
    if (!id) return id.failure();
    OperationRequest native = r;
    native.params = native_params(r, *id);
    return task_answer(ctx.native.call(name, native));
  };
}

}  // namespace

void add_compat_mutation_operations(Operations& ops, CompatContext& ctx) {
  ops.add("runs.archive", setting(
                              ctx, {}, "runs.archive",
                              [](const json::object& before, const json::object&) {
                                return !member(before, "archivedAt").is_null();
                              },
                              [](const json::object&, const json::object& after, bool changed) {
                                return ref_archive_result(after, changed);
                              }));
  ops.add("runs.unarchive", setting(
                                ctx, {}, "runs.unarchive",
                                [](const json::object& before, const json::object&) {
                                  return member(before, "archivedAt").is_null();
                                },
                                [](const json::object&, const json::object& after, bool changed) {
                                  return ref_archive_result(after, changed);
                                }));
  ops.add("runs.setName", setting(
                              ctx, {"name"}, "runs.setName",
                              [](const json::object& before, const json::object& p) { return same(before, "name", p, "name"); },
                              [](const json::object&, const json::object& after, bool changed) {
                                return ref_name_result(after, changed);
                              }));
  ops.add("runs.setNote", setting(
                              ctx, {"note"}, "runs.setNote",
                              [](const json::object& before, const json::object& p) { return same(before, "note", p, "note"); },
                              [](const json::object&, const json::object& after, bool changed) {
                                return ref_note_result(after, changed);
                              }));
  ops.add("runs.setPinned", setting(
                                ctx, {"pinned"}, "runs.setPinned",
                                [](const json::object& before, const json::object& p) {
                                  return same(before, "pinned", p, "pinned");
                                },
                                [](const json::object&, const json::object& after, bool changed) {
                                  return ref_pinned_result(after, changed);
                                }));
  ops.add("runs.setBackendSession", setting(
                                        ctx, {"backendSessionId"}, "runs.setBackendSession",
                                        [](const json::object& before, const json::object& p) {
                                          return same(before, "backendSessionId", p, "backendSessionId");
                                        },
                                        [](const json::object&, const json::object& after, bool changed) {
                                          return ref_backend_session_result(after, changed);
                                        }));
  ops.add("runs.clearBackendSession", setting(
                                          ctx, {}, "runs.clearBackendSession",
                                          [](const json::object& before, const json::object&) {
                                            return member(before, "backendSessionId").is_null();
                                          },
                                          [](const json::object&, const json::object& after, bool changed) {
                                            return ref_backend_session_result(after, changed);
                                          }));
  auto group_result = [](const json::object& before, const json::object& after, bool changed) {
    const auto& previous = member(before, "runGroupId");
    return ref_group_result(after, previous.is_string() ? std::string(previous.as_string()) : std::string(),
                            changed);
  };
  ops.add("runs.setGroup", setting(
                               ctx, {"runGroupId"}, "runs.setGroup",
                               [](const json::object& before, const json::object& p) {
                                 return same(before, "runGroupId", p, "runGroupId");
                               },
                               group_result));
  ops.add("runs.clearGroup", setting(ctx, {}, "runs.clearGroup", {}, group_result));
  auto dependencies_result = [](const json::object&, const json::object& after, bool changed) {
    return ref_dependencies_result(after, changed);
  };
  ops.add("runs.addDependency", setting(ctx, {"dependency"}, "runs.addDependency", {}, dependencies_result));
  ops.add("runs.removeDependency", setting(ctx, {"dependency"}, "runs.removeDependency", {}, dependencies_result));
  ops.add("runs.clearDependencies", setting(
                                        ctx, {}, "runs.clearDependencies",
                                        [](const json::object& before, const json::object&) {
                                          const auto& deps = member(before, "dependencies");
                                          return !deps.is_array() || deps.as_array().empty();
                                        },
                                        dependencies_result));
  ops.add("runs.delete", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto params = addressed(r, {});
    if (!params) return params.failure();
    auto done = call_native(ctx, "runs.delete", r, {{"runId", params->second}});
    if (!done) return done.failure();
    return OperationResult{json::object{{"result", json::object{{"runId", params->second}}}}};
  });
  ops.add("runs.abort", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto params = addressed(r, {});
    if (!params) return params.failure();
    auto done = call_native(ctx, "runs.abort", r, {{"runId", params->second}});
    if (!done) return done.failure();
    return OperationResult{json::object{{"runId", params->second}, {"accepted", true}}};
  });
  // Its container environments are another schema than ours; a run's is looked after
  // with agentry's own commands (docs/environments.md).
  for (const char* method : {"runs.environment.status", "runs.environment.validate", "runs.environment.cleanup"})
    ops.add(method, [method](const OperationRequest&) -> Result<OperationResult> {
      return core::fail(core::ErrorCode::conflict,
                        std::string(method) +
                            " is not supported: agentry runs agent-runner's container environments its own way; use "
                            "`agentry environments status|cleanup` or GET /api/containers on agentry's own port");
    });
  ops.add("runs.reset", run_command(ctx, {}, "runs.reset"));
  ops.add("runs.reconfigure", run_command(ctx, {"vars", "message"}, "runs.reconfigure"));
  auto ready = run_command(ctx, {"schedule"}, "runs.ready", with_flat_schedule);
  ops.add("runs.ready", [ready](const OperationRequest& r) -> Result<OperationResult> {
    // Its HTTP route only promotes; a schedule is set with PUT .../schedule there.
    if (r.over_http && r.params.contains("schedule"))
      return core::fail(core::ErrorCode::invalid_request,
                        "POST /api/runs/:runId/ready takes no body; set a schedule with PUT /api/runs/:runId/schedule",
                        {{"field", "schedule"}});
    return ready(r);
  });
  ops.add("runs.setSchedule", run_command(ctx, {"schedule"}, "runs.setSchedule", with_flat_schedule));
  ops.add("runs.clearSchedule", run_command(ctx, {}, "runs.clearSchedule"));
  ops.add("runs.enableSchedule", run_command(ctx, {}, "runs.enableSchedule"));
  ops.add("runs.disableSchedule", run_command(ctx, {}, "runs.disableSchedule"));
  ops.add("runs.queueResumeMessage", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto params = addressed(r, {"message"});
    if (!params) return params.failure();
    auto message = params->first.required_string("message");
    if (!message) return message.failure();
    auto done = call_native(ctx, "runs.queueResumeMessage", r, {{"runId", params->second}, {"message", *message}});
    if (!done) return done.failure();
    return OperationResult{json::object{{"run", ref_detail(done->at("run").as_object(), facts_of(ctx))},
                                        {"queuedResumeMessage", ref_queued_message(done->at("message").as_object())}}};
  });
  ops.add("runs.removeQueuedResumeMessage", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto params = addressed(r, {"messageId"});
    if (!params) return params.failure();
    auto message_id = params->first.required_string("messageId");
    if (!message_id) return message_id.failure();
    auto done =
        call_native(ctx, "runs.removeQueuedResumeMessage", r, {{"runId", params->second}, {"messageId", *message_id}});
    if (!done) return done.failure();
    auto run = read_run(ctx, r, params->second);
    if (!run) return run.failure();
    return OperationResult{
        json::object{{"run", ref_detail(*run, facts_of(ctx))}, {"removedMessageId", *message_id}}};
  });
  ops.add("tasks.set", task_method(ctx, "tasks.set", {"taskId", "status", "notes", "title", "body"}));
  ops.add("tasks.appendNotes", task_method(ctx, "tasks.appendNotes", {"taskId", "text"}));
  ops.add("tasks.add", task_method(ctx, "tasks.add", {"title", "body"}));
  ops.add("tasks.delete", task_method(ctx, "tasks.delete", {"taskId"}));
}

}  // namespace agentry::api::compat
