// agent-runner's read methods on our operations: each names the run `target`, checks
// its own keys, calls ours and answers in their shapes.

#include "api/compat/compat_dto.hpp"
#include "api/compat/compat_operations.hpp"
#include "api/compat/compat_timelines.hpp"
#include "api/compat/input_surface.hpp"

#include <algorithm>

namespace agentry::api::compat {
namespace json = boost::json;
using core::Result;
namespace {

Result<JsonBody> params_for(const OperationRequest& r, std::initializer_list<std::string_view> allowed) {
  return params_of(r, allowed);
}

/// Their run list scope `{kind: cwd|repo|global|group, ...}` as our query, and the repo
/// bucket to keep when they asked for one (ours filters by path, theirs by bucket name).
struct ListScope {
  json::object query;
  std::optional<std::string> repo_bucket;
};

Result<ListScope> list_scope(const json::value* scope) {
  ListScope out;
  if (!scope || scope->is_null()) {
    out.query["global"] = "true";
    return out;
  }
  auto bad = [](const std::string& why) {
    return core::fail(core::ErrorCode::invalid_request, "scope: " + why, {{"field", "scope"}});
  };
  if (!scope->is_object()) return bad("must be an object {kind, ...}");
  const auto& s = scope->as_object();
  const auto* kind = s.if_contains("kind");
  if (!kind || !kind->is_string()) return bad("'kind' must be one of cwd, repo, global, group");
  auto member = [&](const char* key) -> Result<std::string> {
    const auto* v = s.if_contains(key);
    if (!v || !v->is_string() || v->as_string().empty()) return bad(std::string("'") + key + "' is required for this kind");
    return std::string(v->as_string());
  };
  auto only = [&](std::initializer_list<std::string_view> keys) -> Result<void> {
    for (const auto& [key, value] : s)
      if (std::find(keys.begin(), keys.end(), std::string_view(key)) == keys.end())
        return bad("unknown key '" + std::string(key) + "'");
    return core::ok();
  };
  if (*kind == "global") {
    if (auto ok = only({"kind"}); !ok) return ok.failure();
    out.query["global"] = "true";
  } else if (*kind == "cwd") {
    if (auto ok = only({"kind", "cwd"}); !ok) return ok.failure();
    auto cwd = member("cwd");
    if (!cwd) return cwd.failure();
    out.query["cwd"] = *cwd;
  } else if (*kind == "group") {
    if (auto ok = only({"kind", "runGroupId"}); !ok) return ok.failure();
    auto group = member("runGroupId");
    if (!group) return group.failure();
    out.query["runGroupId"] = *group;
  } else if (*kind == "repo") {
    if (auto ok = only({"kind", "repo"}); !ok) return ok.failure();
    auto repo = member("repo");
    if (!repo) return repo.failure();
    out.query["global"] = "true";
    out.repo_bucket = *repo;
  } else {
    return bad("'kind' must be one of cwd, repo, global, group");
  }
  return out;
}

Result<OperationResult> list_runs(const CompatContext& ctx, const OperationRequest& r) {
  auto params = params_for(r, {"includeArchived", "scope"});
  if (!params) return params.failure();
  auto archived = params->optional_bool("includeArchived");
  if (!archived) return archived.failure();
  auto scope = list_scope(params->object().if_contains("scope"));
  if (!scope) return scope.failure();
  const auto facts = facts_of(ctx);
  json::array runs;
  json::value cursor = nullptr;
  // Their list has no pages: every run of the scope, ours read 500 at a time.
  do {
    json::object query = scope->query;
    query["includeArchived"] = archived->value_or(false) ? "true" : "false";
    query["limit"] = "500";
    if (cursor.is_string()) query["cursor"] = cursor.as_string();
    auto page = call_native(ctx, "runs.list", r, std::move(query));
    if (!page) return page.failure();
    for (const auto& summary : page->at("runs").as_array()) {
      auto theirs = ref_summary(summary.as_object(), facts);
      if (scope->repo_bucket && theirs.at("repo").as_string() != *scope->repo_bucket) continue;
      runs.push_back(std::move(theirs));
    }
    cursor = page->at("nextCursor");
  } while (cursor.is_string());
  return OperationResult{json::object{{"runs", std::move(runs)}}};
}

Result<OperationResult> get_run(const CompatContext& ctx, const OperationRequest& r) {
  auto params = params_for(r, {"target"});
  if (!params) return params.failure();
  auto id = target_of(r);
  if (!id) return id.failure();
  auto native = call_native(ctx, "runs.get", r, {{"runId", *id}});
  if (!native) return native.failure();
  return OperationResult{json::object{{"run", ref_detail(native->at("run").as_object(), facts_of(ctx))}}};
}

Result<OperationResult> audit_history(const CompatContext& ctx, const OperationRequest& r) {
  auto params = params_for(r, {"target", "limit"});
  if (!params) return params.failure();
  auto id = target_of(r);
  if (!id) return id.failure();
  auto limit = text_param(*params, "limit");
  if (!limit) return limit.failure();
  std::optional<std::size_t> keep;
  if (*limit) {
    char* end = nullptr;
    const long long n = std::strtoll((*limit)->c_str(), &end, 10);
    if ((*limit)->empty() || *end != '\0' || n < 1)
      return core::fail(core::ErrorCode::invalid_request, "limit must be a positive integer", {{"field", "limit"}});
    keep = static_cast<std::size_t>(n);
  }
  // Their history is the whole of it (the newest `limit`); ours comes in pages.
  json::array events;
  std::int64_t after = 0;
  for (;;) {
    auto page = call_native(ctx, "runs.auditHistory", r,
                            {{"runId", *id}, {"after", std::to_string(after)}, {"limit", "5000"}});
    if (!page) return page.failure();
    auto& got = page->at("events").as_array();
    for (auto& e : got) events.push_back(std::move(e));
    if (got.size() < 5000) break;
    after = events.back().at("cursor").as_int64();
  }
  if (keep && events.size() > *keep) events.erase(events.begin(), events.end() - static_cast<std::ptrdiff_t>(*keep));
  const std::int64_t last = events.empty() ? 0 : events.back().at("cursor").as_int64();
  json::object page{{"runId", *id}, {"events", std::move(events)}, {"lastCursor", last}};
  return OperationResult{json::object{{"history", ref_audit_history(page, *id, facts_of(ctx))}}};
}

Result<OperationResult> brief(const CompatContext& ctx, const OperationRequest& r) {
  auto params = params_for(r, {"target"});
  if (!params) return params.failure();
  auto id = target_of(r);
  if (!id) return id.failure();
  auto native = call_native(ctx, "runs.brief", r, {{"runId", *id}});
  if (!native) return native.failure();
  return OperationResult{json::object{{"brief", native->at("brief")}}};
}

Result<OperationResult> list_tasks(const CompatContext& ctx, const OperationRequest& r) {
  auto params = params_for(r, {"target"});
  if (!params) return params.failure();
  auto id = target_of(r);
  if (!id) return id.failure();
  auto native = call_native(ctx, "tasks.list", r, {{"runId", *id}});
  if (!native) return native.failure();
  json::array tasks;
  for (const auto& t : native->at("tasks").as_array()) tasks.push_back(ref_task(t.as_object()));
  return OperationResult{json::object{{"tasks", std::move(tasks)}}};
}

Result<OperationResult> get_task(const CompatContext& ctx, const OperationRequest& r) {
  auto params = params_for(r, {"target", "taskId"});
  if (!params) return params.failure();
  auto id = target_of(r);
  if (!id) return id.failure();
  auto task_id = params->required_string("taskId");
  if (!task_id) return task_id.failure();
  auto native = call_native(ctx, "tasks.get", r, {{"runId", *id}, {"taskId", *task_id}});
  if (!native) return native.failure();
  return OperationResult{json::object{{"task", ref_task(native->at("task").as_object())}}};
}

/// `<plural>.list` of one definition kind: their list.
void add_definition_list(Operations& ops, CompatContext& ctx, const std::string& plural) {
  ops.add(plural + ".list", [&ctx, plural](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_for(r, {});
    if (!params) return params.failure();
    auto native = call_native(ctx, plural + ".list", r, {});
    if (!native) return native.failure();
    return OperationResult{json::object{{plural, ref_definition_list(native->at(plural).as_object())}}};
  });
}

/// `<plural>.list` and `<plural>.get` of one definition kind: their list and detail.
void add_definition_kind(Operations& ops, CompatContext& ctx, const std::string& plural, const std::string& singular) {
  add_definition_list(ops, ctx, plural);
  ops.add(plural + ".get", [&ctx, plural, singular](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_for(r, {"target", "cwd"});
    if (!params) return params.failure();
    auto target = params->required_string("target");
    if (!target) return target.failure();
    if (plural == "launchers" && *target == "direct")
      return OperationResult{json::object{{singular, ref_direct_launcher_detail()}}};
    json::object native_params{{"target", *target}};
    if (const auto* cwd = params->object().if_contains("cwd")) native_params["cwd"] = *cwd;
    auto native = call_native(ctx, plural + ".get", r, std::move(native_params));
    if (!native) return native.failure();
    return OperationResult{json::object{{singular, ref_definition_detail(native->at(singular).as_object())}}};
  });
}

/// The run's cwd, which their workspace answers state and some of ours do not.
Result<std::string> cwd_of(const CompatContext& ctx, const OperationRequest& r, const std::string& id) {
  auto native = call_native(ctx, "runs.get", r, {{"runId", id}});
  if (!native) return native.failure();
  const auto* cwd = native->at("run").as_object().if_contains("cwd");
  return cwd && cwd->is_string() ? std::string(cwd->as_string()) : std::string();
}

using RequestCheck = Result<void> (*)(const OperationRequest&);
Result<void> no_check(const OperationRequest&) { return core::ok(); }

/// workspace.<what>: our answer wrapped in `key`, translated by `translate`, after their
/// own rules for the request (`check`).
template <class Translate>
void add_workspace_method(Operations& ops, CompatContext& ctx, const std::string& what, const char* key,
                          std::initializer_list<std::string_view> allowed, Translate translate,
                          RequestCheck check = no_check) {
  std::vector<std::string_view> keys(allowed);
  ops.add("workspace." + what, [&ctx, what, key, keys, translate, check](const OperationRequest& r) -> Result<OperationResult> {
    if (auto ok = only_keys(r, keys); !ok) return ok.failure();
    if (auto ok = check(r); !ok) return ok.failure();
    auto id = target_of(r);
    if (!id) return id.failure();
    json::object native_params{{"runId", *id}};
    for (const auto& [k, v] : r.params)
      if (k != "target") native_params[k] = v;
    auto native = call_native(ctx, "workspace." + what, r, std::move(native_params));
    if (!native) return native.failure();
    WorkspaceFacts facts;
    if (const auto* cwd = native->if_contains("cwd"); cwd && cwd->is_string()) {
      facts.cwd = std::string(cwd->as_string());
    } else {
      auto cwd_text = cwd_of(ctx, r, *id);
      if (!cwd_text) return cwd_text.failure();
      facts.cwd = *cwd_text;
    }
    return OperationResult{json::object{{key, translate(*native, facts)}}};
  });
}

/// Their diff request: `mode` required; working-tree takes nothing else; branch needs
/// base, head and comparison. Checked here, so that our defaults never stand in.
Result<void> check_diff_request(const OperationRequest& r) {
  auto text = [&](const char* key) -> std::optional<std::string> {
    const auto* v = r.params.if_contains(key);
    if (!v || !v->is_string()) return std::nullopt;
    return std::string(v->as_string());
  };
  auto bad = [](const std::string& why, const char* field) {
    return core::fail(core::ErrorCode::invalid_request, why, {{"field", field}});
  };
  const auto mode = text("mode");
  if (!mode) return bad("'mode' is required: working-tree or branch", "mode");
  if (*mode == "working-tree") {
    for (const char* key : {"base", "head", "comparison"})
      if (r.params.contains(key)) return bad(std::string("'") + key + "' is for mode=branch", key);
    return core::ok();
  }
  if (*mode != "branch") return bad("'mode' must be working-tree or branch", "mode");
  for (const char* key : {"base", "head", "comparison"})
    if (!text(key) || text(key)->empty()) return bad(std::string("'") + key + "' is required with mode=branch", key);
  if (*text("comparison") != "merge-base" && *text("comparison") != "direct")
    return bad("'comparison' must be merge-base or direct", "comparison");
  return core::ok();
}

}  // namespace

/// What its new-run form shows for an agent and an assignment (W35).
Result<OperationResult> input_surface(const CompatContext& ctx, const OperationRequest& r) {
  auto params = params_for(r, {"agent", "assignment", "cwd"});
  if (!params) return params.failure();
  auto agent = params->required_string("agent");
  if (!agent) return agent.failure();
  auto assignment = params->required_string("assignment");
  if (!assignment) return assignment.failure();
  json::object where;
  if (const auto* cwd = r.params.if_contains("cwd")) where["cwd"] = *cwd;
  json::object agent_params = where;
  agent_params["target"] = *agent;
  auto agent_detail = call_native(ctx, "agents.get", r, std::move(agent_params));
  if (!agent_detail) return agent_detail.failure();
  json::object assignment_params = where;
  assignment_params["target"] = *assignment;
  auto assignment_detail = call_native(ctx, "assignments.get", r, std::move(assignment_params));
  if (!assignment_detail) return assignment_detail.failure();
  std::vector<std::string> backends;
  for (const auto& name : ctx.api.engine.backends().names()) backends.emplace_back(name);
  return OperationResult{json::object{
      {"inputSurface", run_input_surface(agent_detail->at("agent").at("agent").as_object(),
                                         assignment_detail->at("assignment").at("assignment").as_object(),
                                         backends)}}};
}

void add_compat_read_operations(Operations& ops, CompatContext& ctx) {
  ops.add("compat.runInputSurface", [&ctx](const OperationRequest& r) { return input_surface(ctx, r); });
  ops.add("daemon.info", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_for(r, {});
    if (!params) return params.failure();
    auto native = call_native(ctx, "daemon.info", r, {});
    if (!native) return native.failure();
    return OperationResult{ref_daemon_info(*native, ctx.listen_url)};
  });
  ops.add("runs.list", [&ctx](const OperationRequest& r) { return list_runs(ctx, r); });
  ops.add("runs.get", [&ctx](const OperationRequest& r) { return get_run(ctx, r); });
  ops.add("runs.brief", [&ctx](const OperationRequest& r) { return brief(ctx, r); });
  ops.add("runs.auditHistory", [&ctx](const OperationRequest& r) { return audit_history(ctx, r); });
  ops.add("runs.timelineHistory", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_for(r, {"target"});
    if (!params) return params.failure();
    auto id = target_of(r);
    if (!id) return id.failure();
    // Read through our own method first: it checks the caller may see this run.
    if (auto seen = call_native(ctx, "runs.brief", r, {{"runId", *id}}); !seen) return seen.failure();
    auto history = ctx.timelines.history(*id);
    if (!history) return history.failure();
    return OperationResult{json::object{{"history", std::move(*history)}}};
  });
  ops.add("tasks.list", [&ctx](const OperationRequest& r) { return list_tasks(ctx, r); });
  ops.add("tasks.get", [&ctx](const OperationRequest& r) { return get_task(ctx, r); });
  add_definition_kind(ops, ctx, "agents", "agent");
  add_definition_kind(ops, ctx, "assignments", "assignment");
  add_definition_kind(ops, ctx, "launchers", "launcher");
  add_definition_kind(ops, ctx, "taskDefinitions", "taskDefinition");
  // Our environments listed by name (R15); a detail would have to be theirs (a container
  // `mode: existing|managed`), which ours cannot be put as, so it is refused as the
  // run environment methods are (R14).
  add_definition_list(ops, ctx, "environments");
  ops.add("environments.get", [](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_for(r, {"target", "cwd"});
    if (!params) return params.failure();
    return core::fail(core::ErrorCode::conflict,
                      "environments.get is not supported: agentry's environments (bubblewrap sandboxes and "
                      "containers, docs/environments.md) are another schema than agent-runner's container "
                      "environments and cannot be shown as one; read it with GET /api/environments/:name on "
                      "agentry's own port, or `agentry environments show`");
  });
  add_workspace_method(ops, ctx, "files", "directory", {"path"}, ref_workspace_directory);
  add_workspace_method(ops, ctx, "search", "search", {"q", "limit"}, ref_workspace_search);
  add_workspace_method(ops, ctx, "file", "file", {"path"}, ref_workspace_file);
  add_workspace_method(ops, ctx, "diff", "diff", {"mode", "base", "head", "comparison"}, ref_workspace_diff,
                       check_diff_request);
}

}  // namespace agentry::api::compat
