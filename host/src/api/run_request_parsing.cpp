#include "api/run_request_parsing.hpp"

#include "core/group_id.hpp"
#include "core/ids.hpp"
#include "core/placement.hpp"

#include <filesystem>

namespace agentry::api {
using core::ErrorCode;

namespace {

core::Result<void> check_size(std::string_view field, const std::optional<std::string>& value, std::size_t limit) {
  if (value && value->size() > limit)
    return core::fail(ErrorCode::invalid_request,
                      "field '" + std::string(field) + "' is longer than " + std::to_string(limit) + " bytes",
                      {{"field", field}});
  return core::ok();
}

core::Result<engine::RunOverrides> parse_overrides(const JsonBody& o) {
  if (auto ok = o.allow_only({"message", "cwd", "model", "effort", "timeoutSec", "maxRetries", "backendConfig",
                              "launcher", "environment", "backend", "unrestricted"});
      !ok)
    return ok.failure();
  engine::RunOverrides out;
  auto message = o.optional_string("message");
  if (!message) return message.failure();
  if (auto ok = check_size("overrides.message", *message, max_message_bytes); !ok) return ok.failure();
  out.message = *message;
  for (auto [key, target] : {std::pair{"cwd", &out.cwd}, std::pair{"model", &out.model},
                             std::pair{"effort", &out.effort}, std::pair{"launcher", &out.launcher},
                             std::pair{"environment", &out.environment}, std::pair{"backend", &out.backend}}) {
    auto v = o.optional_string(key);
    if (!v) return v.failure();
    *target = *v;
  }
  if (out.backend && out.backend->empty())
    return core::fail(ErrorCode::invalid_request, "field 'overrides.backend' must name a backend",
                      {{"field", "overrides.backend"}});
  auto unrestricted = o.optional_bool("unrestricted");
  if (!unrestricted) return unrestricted.failure();
  out.unrestricted = *unrestricted;
  auto timeout = o.optional_int("timeoutSec", 0, 7 * 24 * 3600);
  if (!timeout) return timeout.failure();
  if (*timeout) out.timeout_sec = static_cast<int>(**timeout);
  auto retries = o.optional_int("maxRetries", 0, 20);
  if (!retries) return retries.failure();
  if (*retries) out.max_retries = static_cast<int>(**retries);
  auto config = o.optional_object("backendConfig");
  if (!config) return config.failure();
  out.backend_config = *config;
  return out;
}

/// placement: { labels: ["gpu"] }: labels a member needs to run it (core/placement.hpp).
core::Result<std::vector<std::string>> parse_placement(const JsonBody& body) {
  const auto* placement = body.object().if_contains("placement");
  if (placement == nullptr || placement->is_null()) return std::vector<std::string>{};
  const auto wrong = [](const std::string& field, const std::string& message) {
    return core::fail(ErrorCode::invalid_request, "field '" + field + "' " + message, {{"field", field}});
  };
  if (!placement->is_object()) return wrong("placement", "must be an object like { \"labels\": [\"gpu\"] }");
  for (const auto& [key, value] : placement->as_object())
    if (key != "labels") return wrong("placement." + std::string(key), "is not known; placement takes labels");
  std::vector<std::string> labels;
  const auto* list = placement->as_object().if_contains("labels");
  if (list == nullptr) return labels;
  if (!list->is_array()) return wrong("placement.labels", "must be an array of labels");
  for (std::size_t i = 0; i < list->as_array().size(); ++i) {
    const auto& item = list->as_array()[i];
    const std::string field = "placement.labels[" + std::to_string(i) + "]";
    if (!item.is_string() || !core::is_valid_label(item.as_string()))
      return wrong(field, "must be a label: 1-128 letters, digits and . _ - : = /");
    labels.emplace_back(item.as_string());
  }
  if (labels.size() > 32) return wrong("placement.labels", "may hold at most 32 labels");
  return labels;
}

}  // namespace

core::Result<engine::InitRequest> parse_init_request(const JsonBody& body, engine::VarOrigin origin,
                                                     bool agent_required) {
  if (auto ok = body.allow_only({"agent", "assignment", "definitionCwd", "callerCwd", "parentRunId", "runGroupId",
                                 "backendSessionId", "cliVars", "webVars", "overrides", "name", "dependencies",
                                 "notifyParentOnComplete", "inheritRunGroup", "notify", "placement", "budget"});
      !ok)
    return ok.failure();
  engine::InitRequest r;
  r.var_origin = origin;
  // Without an agent, a backend makes an ad-hoc one (engine/ad_hoc_agent.hpp).
  const auto* overrides_value = body.object().if_contains("overrides");
  const bool backend_given = overrides_value && overrides_value->is_object() &&
                             overrides_value->as_object().contains("backend");
  if (agent_required && !body.has("agent") && !backend_given)
    return core::fail(ErrorCode::invalid_request,
                      "field 'agent' is required: name an agent, or give overrides.backend to run an ad-hoc agent",
                      {{"field", "agent"}});
  if (body.has("agent")) {
    auto agent = body.required_string("agent");
    if (!agent) return agent.failure();
    if (agent->empty())
      return core::fail(ErrorCode::invalid_request, "field 'agent' must not be empty", {{"field", "agent"}});
    r.agent = *agent;
  }
  struct StringField {
    const char* key;
    std::optional<std::string>* target;
  };
  for (auto [key, target] : {StringField{"assignment", &r.assignment}, StringField{"definitionCwd", &r.definition_cwd},
                             StringField{"callerCwd", &r.caller_cwd}, StringField{"parentRunId", &r.parent_run_id},
                             StringField{"runGroupId", &r.run_group_id},
                             StringField{"backendSessionId", &r.backend_session_id}, StringField{"name", &r.name}}) {
    auto v = body.optional_string(key);
    if (!v) return v.failure();
    *target = *v;
  }
  if (r.parent_run_id && !core::is_valid_run_id(*r.parent_run_id))
    return core::fail(ErrorCode::invalid_request, "field 'parentRunId' is not a valid run id",
                      {{"field", "parentRunId"}});
  if (r.run_group_id) {
    auto group = core::normalize_group_id(*r.run_group_id);
    if (!group)
      return core::fail(ErrorCode::invalid_request, "field 'runGroupId' must be " + std::string(core::group_id_rule),
                        {{"field", "runGroupId"}});
    r.run_group_id = std::move(*group);
  }
  if (auto ok = check_size("name", r.name, max_name_bytes); !ok) return ok.failure();
  auto notify_parent = body.optional_bool("notifyParentOnComplete");
  if (!notify_parent) return notify_parent.failure();
  if (*notify_parent && **notify_parent && !r.parent_run_id)
    return core::fail(ErrorCode::invalid_request,
                      "field 'notifyParentOnComplete' needs 'parentRunId': only a child run can notify its parent",
                      {{"field", "notifyParentOnComplete"}});
  r.notify_parent_on_complete = *notify_parent;
  auto inherit = body.optional_bool("inheritRunGroup");
  if (!inherit) return inherit.failure();
  r.inherit_run_group = inherit->value_or(true);
  // webVars: the reference's name for vars a web client sets (source `web`).
  if (body.has("cliVars") && body.has("webVars"))
    return core::fail(ErrorCode::invalid_request, "give cliVars or webVars, not both", {{"field", "webVars"}});
  const char* vars_key = body.has("webVars") ? "webVars" : "cliVars";
  auto vars = body.optional_object(vars_key);
  if (!vars) return vars.failure();
  if (*vars) r.cli_vars = std::move(**vars);
  if (body.has("webVars")) r.var_origin = engine::VarOrigin::web;
  auto overrides = body.optional_body("overrides");
  if (!overrides) return overrides.failure();
  if (*overrides) {
    auto parsed = parse_overrides(**overrides);
    if (!parsed) return parsed.failure();
    r.overrides = std::move(*parsed);
  }
  if (auto* deps = body.object().if_contains("dependencies")) {
    if (!deps->is_array())
      return core::fail(ErrorCode::invalid_request,
                        "field 'dependencies' must be an array of { type: \"run\", runId } or "
                        "{ type: \"group\", groupId }",
                        {{"field", "dependencies"}});
    for (std::size_t i = 0; i < deps->as_array().size(); ++i) {
      const auto& item = deps->as_array()[i];
      const std::string field = "dependencies[" + std::to_string(i) + "]";
      if (!item.is_object())
        return core::fail(ErrorCode::invalid_request, "field '" + field + "' must be an object", {{"field", field}});
      auto parsed = parse_dependency(JsonBody(item.as_object(), field + "."));
      if (!parsed) return parsed.failure();
      r.dependencies.push_back(std::move(*parsed));
    }
  }
  if (auto* notify = body.object().if_contains("notify")) {
    // Webhooks only: a command target would let whoever reaches the API choose what
    // the daemon runs. Definition files may declare commands.
    std::optional<std::pair<std::string, std::string>> first;
    r.notify = core::parse_notify_targets(*notify, "notify", "run", /*allow_commands=*/false,
                                          [&](const std::string& field, const std::string& message) {
                                            if (!first) first.emplace(field, message);
                                          });
    if (first)
      return core::fail(ErrorCode::invalid_request, "field '" + first->first + "' " + first->second,
                        {{"field", first->first}});
  }
  if (auto labels = parse_placement(body); !labels) return labels.failure();
  else r.placement_labels = std::move(*labels);
  if (auto* budget = body.object().if_contains("budget"); budget && !budget->is_null()) {
    std::string field, error;
    r.overrides.budget = core::parse_budget(*budget, field, error);
    if (!r.overrides.budget) {
      field = field.empty() ? "budget" : "budget." + field;
      return core::fail(ErrorCode::invalid_request, "field '" + field + "' " + error, {{"field", field}});
    }
  }
  return r;
}

core::Result<core::Dependency> parse_dependency(const JsonBody& body) {
  auto type_text = body.required_string("type");
  if (!type_text) return type_text.failure();
  auto type = core::parse_dependency_type(*type_text);
  if (!type)
    return core::fail(ErrorCode::invalid_request, "dependency type must be \"run\" or \"group\" (got '" + *type_text + "')",
                      {{"field", "type"}});
  const bool run = *type == core::DependencyType::run;
  if (auto ok = body.allow_only({"type", run ? "runId" : "groupId"}); !ok) return ok.failure();
  auto target = body.required_string(run ? "runId" : "groupId");
  if (!target) return target.failure();
  if (!run)
    if (auto group = core::normalize_group_id(*target)) *target = std::move(*group);
  if (run ? !core::is_valid_run_id(*target) : !core::normalize_group_id(*target))
    return core::fail(ErrorCode::invalid_request,
                      run ? "'" + *target + "' is not a valid run id (1-64 characters of letters, digits, _ and -)"
                          : "'" + *target + "' is not a valid group id (" + std::string(core::group_id_rule) + ")",
                      {{"field", run ? "runId" : "groupId"}});
  return core::Dependency{*type, *target, {}};
}

core::Result<engine::ResumeRequest> parse_resume_request(const JsonBody& body) {
  if (auto ok = body.allow_only({"message", "overrides"}); !ok) return ok.failure();
  // The reference sends {overrides: {message}}; agentry's own shape is {message}.
  auto overrides = body.optional_body("overrides");
  if (!overrides) return overrides.failure();
  if (*overrides) {
    if (auto ok = (*overrides)->allow_only({"message"}); !ok) return ok.failure();
    if (body.has("message"))
      return core::fail(ErrorCode::invalid_request, "give message or overrides.message, not both",
                        {{"field", "overrides.message"}});
    auto nested = (*overrides)->optional_string("message");
    if (!nested) return nested.failure();
    if (auto ok = check_size("overrides.message", *nested, max_message_bytes); !ok) return ok.failure();
    return engine::ResumeRequest{*nested};
  }
  auto message = body.optional_string("message");
  if (!message) return message.failure();
  if (auto ok = check_size("message", *message, max_message_bytes); !ok) return ok.failure();
  return engine::ResumeRequest{*message};
}

core::Result<engine::ReconfigureRequest> parse_reconfigure_request(const JsonBody& body) {
  if (auto ok = body.allow_only({"vars", "message"}); !ok) return ok.failure();
  engine::ReconfigureRequest r;
  auto vars = body.optional_object("vars");
  if (!vars) return vars.failure();
  r.vars = *vars;
  if (body.has("message") && body.object().at("message").is_null())
    return core::fail(ErrorCode::invalid_request,
                      "field 'message' must be a string; omit it to keep the current message", {{"field", "message"}});
  auto message = body.optional_string("message");
  if (!message) return message.failure();
  if (auto ok = check_size("message", *message, max_message_bytes); !ok) return ok.failure();
  r.message = *message;
  if (!r.vars && !r.message)
    return core::fail(ErrorCode::invalid_request, "nothing to reconfigure: give 'vars' and/or 'message'");
  return r;
}

core::Result<engine::TaskPatch> parse_task_patch(const JsonBody& body) {
  if (auto ok = body.allow_only({"status", "notes", "title", "body"}); !ok) return ok.failure();
  engine::TaskPatch p;
  for (auto [key, target] : {std::pair{"status", &p.status}, std::pair{"notes", &p.notes},
                             std::pair{"title", &p.title}, std::pair{"body", &p.body}}) {
    auto v = body.optional_string(key);
    if (!v) return v.failure();
    *target = *v;
  }
  if (!p.status && !p.notes && !p.title && !p.body)
    return core::fail(ErrorCode::invalid_request, "nothing to update: give status, notes, title and/or body");
  return p;
}

core::Result<engine::NewTask> parse_new_task(const JsonBody& body) {
  if (auto ok = body.allow_only({"id", "title", "body"}); !ok) return ok.failure();
  engine::NewTask t;
  auto id = body.optional_string("id");
  if (!id) return id.failure();
  t.id = *id;
  auto title = body.required_string("title");
  if (!title) return title.failure();
  t.title = *title;
  auto text = body.optional_string("body");
  if (!text) return text.failure();
  t.body = text->value_or("");
  return t;
}

core::Result<core::RunQuery> parse_run_query(const std::map<std::string, std::string>& query) {
  core::RunQuery q;
  int scopes = 0;
  auto get = [&](const char* key) -> const std::string* {
    auto it = query.find(key);
    return it == query.end() ? nullptr : &it->second;
  };
  if (auto* v = get("cwd")) {
    ++scopes;
    q.scope = core::RunQuery::Scope::cwd;
    q.value = *v;
  }
  if (auto* v = get("repo")) {
    ++scopes;
    q.scope = core::RunQuery::Scope::repo;
    q.value = *v;
  }
  if (auto* v = get("runGroupId")) {
    ++scopes;
    q.scope = core::RunQuery::Scope::group;
    auto group = core::normalize_group_id(*v);
    if (!group)
      return core::fail(ErrorCode::invalid_request, "runGroupId must be " + std::string(core::group_id_rule),
                        {{"parameter", "runGroupId"}});
    q.value = std::move(*group);
  }
  if (auto* v = get("global")) {
    if (*v != "true")
      return core::fail(ErrorCode::invalid_request, "global must be 'true' when given", {{"parameter", "global"}});
    ++scopes;
    q.scope = core::RunQuery::Scope::global;
  }
  // No scope lists every run, as the reference does.
  if (scopes == 0) q.scope = core::RunQuery::Scope::global;
  if (scopes > 1)
    return core::fail(ErrorCode::invalid_request,
                      "give exactly one of cwd=<path>, repo=<path>, global=true or runGroupId=<id>",
                      {{"reason", scopes == 0 ? "missing_scope" : "conflicting_scopes"}});
  if (q.scope == core::RunQuery::Scope::cwd || q.scope == core::RunQuery::Scope::repo) {
    if (q.value.empty() || q.value[0] != '/')
      return core::fail(ErrorCode::invalid_request, "cwd and repo must be absolute paths");
    // Runs store canonical paths; compare like with like.
    std::error_code ec;
    auto canonical = std::filesystem::weakly_canonical(q.value, ec);
    if (!ec) q.value = canonical.string();
  }
  if (auto* v = get("includeArchived")) {
    if (*v != "true" && *v != "false")
      return core::fail(ErrorCode::invalid_request, "includeArchived must be 'true' or 'false'",
                        {{"parameter", "includeArchived"}});
    q.include_archived = *v == "true";
  }
  if (auto* v = get("limit")) {
    char* end = nullptr;
    long n = std::strtol(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0' || n < 1 || n > 500)
      return core::fail(ErrorCode::invalid_request, "limit must be an integer from 1 to 500", {{"parameter", "limit"}});
    q.limit = static_cast<std::size_t>(n);
  }
  if (auto* v = get("cursor")) {
    if (!core::is_valid_run_page_cursor(*v))
      return core::fail(ErrorCode::invalid_request, "cursor is malformed; pass nextCursor from a previous page",
                        {{"parameter", "cursor"}});
    q.after = *v;
  }
  return q;
}

}  // namespace agentry::api
