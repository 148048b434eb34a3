#include "engine/hooks/prepare_at_init.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/utf8.hpp"
#include "definitions/loader.hpp"
#include "definitions/vars.hpp"
#include "engine/hooks/hook_runner.hpp"
#include "engine/hooks/module_hook.hpp"
#include "environments/launch.hpp"
#include "store/hook_audit_repository.hpp"
#include "store/transaction.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>

namespace agentry::engine {
namespace fs = std::filesystem;
namespace json = boost::json;
namespace {

constexpr std::int64_t max_timeout_sec = 7 * 24 * 3600;  // as a request's overrides.timeoutSec

/// Why a hook's change could not be applied: the hook fails, naming the field.
struct Refusal {
  std::string field;
  std::string message;
};

std::optional<Refusal> refuse(const std::string& key, std::string why) {
  return Refusal{"mutate.run." + key, "mutate.run." + key + " " + std::move(why)};
}

std::optional<Refusal> apply_cwd(const json::value& value, ResolvedRunInputs& inputs) {
  if (!value.is_string() || value.as_string().empty()) return refuse("cwd", "must be a non-empty path");
  fs::path path(std::string(value.as_string()));
  if (path.is_relative()) path = fs::path(inputs.cwd) / path;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return refuse("cwd", path.string() + " does not exist or is not a directory");
  auto canonical = fs::canonical(path, ec);
  if (ec) return refuse("cwd", "cannot be resolved: " + ec.message());
  inputs.cwd = canonical.string();
  inputs.repo_root = find_repo_root(canonical);
  return std::nullopt;
}

/// Another backend: its config and arguments are the agent's for it, as if the agent had
/// named it (agent-runner resolves them again after prepare too).
std::optional<Refusal> apply_backend(const json::value& value, ResolvedRunInputs& inputs, const PrepareAtInitEnv& env) {
  auto& f = inputs.frozen;
  if (!value.is_string() || value.as_string().empty()) return refuse("backend", "must be a backend name");
  const std::string backend(value.as_string());
  if (backend == f.backend) return std::nullopt;
  if (!env.backends.has(backend)) {
    std::string names;
    for (const auto& n : env.backends.names()) names += (names.empty() ? "" : ", ") + n;
    return refuse("backend", "'" + backend + "' is not an available backend (" + names + ")");
  }
  if (env.request_backend_config)
    return refuse("backend", "cannot change the backend of a run whose request set overrides.backendConfig for '" +
                                 f.backend + "'");
  f.backend = backend;
  f.backend_config = {};
  f.extra_args = {};
  if (!f.agent_source_path.empty()) {
    auto agent = definitions::load_agent(env.context.roots, f.agent_source_path);
    if (!agent) return refuse("backend", "cannot read agent '" + f.agent_name + "' again: " + agent.error().message);
    f.backend_config = definitions::backend_config_for(*agent, backend);
    f.extra_args = definitions::extra_args_for(*agent, backend);
  }
  if (f.environment)
    if (auto ok = environments::check_launchable(*f.environment, f.backend, f.backend_config); !ok)
      return refuse("backend", "'" + backend + "' cannot run in the run's environment: " + ok.error().message);
  return std::nullopt;
}

std::optional<Refusal> apply_run_field(const std::string& key, const json::value& value, ResolvedRunInputs& inputs,
                                       const PrepareAtInitEnv& env) {
  auto& f = inputs.frozen;
  if (key == "cwd") return apply_cwd(value, inputs);
  if (key == "backend") return apply_backend(value, inputs, env);
  if (key == "model" || key == "effort") {
    if (!value.is_string()) return refuse(key, "must be a string");
    (key == "model" ? f.model : f.effort) = core::sanitize_utf8(value.as_string());
  } else if (key == "timeoutSec") {
    const auto seconds = value.is_int64()    ? std::optional<std::int64_t>(value.as_int64())
                         : value.is_uint64() ? std::optional<std::int64_t>(static_cast<std::int64_t>(
                                                   std::min<std::uint64_t>(value.as_uint64(), max_timeout_sec + 1)))
                                             : std::nullopt;
    if (!seconds || *seconds < 0 || *seconds > max_timeout_sec)
      return refuse(key, "must be a whole number of seconds from 0 (no limit) to " + std::to_string(max_timeout_sec));
    f.timeout_sec = static_cast<int>(*seconds);
  } else if (key == "unrestricted") {
    if (!value.is_bool()) return refuse(key, "must be true or false");
    f.unrestricted = value.as_bool();
  } else if (key == "lockedFields") {
    std::vector<std::string> fields;
    for (const auto& item : value.is_array() ? value.as_array() : json::array()) {
      if (!item.is_string() || item.as_string().empty()) return refuse(key, "must be a list of field names");
      fields.emplace_back(item.as_string());
    }
    if (!value.is_array()) return refuse(key, "must be a list of field names");
    f.locked_fields = std::move(fields);
  } else {
    return refuse(key, "is not applied by agentry");
  }
  return std::nullopt;
}

/// mutate.vars: merged into the run's vars, marked as set by a hook. A declared var's
/// value is checked and converted as a request's would be; others must be text, a
/// number or a boolean (they only fill templates).
std::optional<Refusal> apply_vars(const json::object& given, core::FrozenInputs& f) {
  auto specs = definitions::var_specs_from_json(f.var_specs);
  if (!specs) return Refusal{"mutate.vars", "mutate.vars: the run's var declarations are unreadable"};
  for (const auto& [key, value] : given) {
    const std::string name(key);
    const std::string field = "mutate.vars." + name;
    if (!definitions::is_valid_var_name(name)) return Refusal{field, field + " is not a var name"};
    json::value coerced = value;
    const auto spec = std::find_if(specs->begin(), specs->end(), [&](const auto& s) { return s.name == name; });
    if (spec != specs->end() && !value.is_null()) {
      auto checked = definitions::coerce_var_value(*spec, value, false);
      if (!checked) return Refusal{field, field + " " + checked.error().message};
      coerced = std::move(*checked);
    } else if (!value.is_null() && !value.is_string() && !value.is_number() && !value.is_bool()) {
      return Refusal{field, field + " must be text, a number or a boolean"};
    }
    f.vars[name] = std::move(coerced);
    f.var_sources[name] = json::object{{"source", "hook"}};
  }
  return std::nullopt;
}

/// The task patches of a prepare hook, on the tasks about to be written. A patch of a
/// task the run does not have is dropped, and the audit says so (as at later phases).
void apply_patches(const std::vector<HookTaskPatch>& patches, std::vector<core::Task>& tasks, core::HookAudit& audit) {
  std::string unknown;
  for (const auto& patch : patches) {
    auto task = std::find_if(tasks.begin(), tasks.end(), [&](const core::Task& t) { return t.id == patch.task_id; });
    if (task == tasks.end()) {
      unknown += (unknown.empty() ? "" : ", ") + patch.task_id;
      continue;
    }
    if (patch.status) task->status = *patch.status;
    if (patch.notes_replace) task->notes = *patch.notes_replace;
    if (patch.notes_append)
      task->notes += (task->notes.empty() || task->notes.back() == '\n' ? "" : "\n") + *patch.notes_append;
  }
  if (!unknown.empty()) audit.message = "patchTasks: no task " + unknown + " in this run; not patched";
}

core::Failure stopped_by(const core::HookSpec& hook, const core::HookAudit& audit, const std::string& field) {
  const std::string what = audit.outcome == "blocked"    ? "blocked"
                           : audit.outcome == "timedOut" ? "timed out"
                                                         : "failed";
  json::object details{{"hookId", hook.id},
                       {"source", hook.module_source},
                       {"phase", "prepare"},
                       {"outcome", audit.outcome},
                       {"reason", audit.message}};
  if (!field.empty()) details["field"] = field;
  return core::fail(core::ErrorCode::validation,
                    "prepare hook '" + hook.id + "' (" + hook.module_source + ") " + what + ": " + audit.message +
                        "; the run was not created",
                    std::move(details));
}

}  // namespace

bool has_prepare_at_init(const core::FrozenInputs& frozen) {
  return std::any_of(frozen.hooks.begin(), frozen.hooks.end(), [](const core::HookSpec& h) { return runs_at_init(h); });
}

core::Result<PreparedAtInit> run_prepare_at_init(core::Run& run, ResolvedRunInputs& inputs, const PrepareAtInitEnv& env) {
  PreparedAtInit out;
  ModuleHookInputs told;
  std::optional<std::string> first_prompt;
  bool rerender = false;
  const auto hooks = inputs.frozen.hooks;  // a copy: the hooks change `inputs`, never its hooks
  for (const auto& hook : hooks) {
    if (!runs_at_init(hook)) continue;
    // Each hook sees the run as the earlier ones left it.
    if (rerender) render_run_inputs(inputs, env.context), rerender = false;
    run.frozen = inputs.frozen;
    run.cwd = inputs.cwd;
    run.repo_root = inputs.repo_root;
    run.note = out.note ? out.note : run.note;
    run.pinned = out.pinned.value_or(run.pinned);
    told.tasks = inputs.tasks;
    told.prompt = first_prompt.value_or("");

    core::HookAudit audit;
    audit.hook_id = hook.id;
    audit.phase = hook.phase;
    audit.created_at = core::now_iso8601();
    const HookInvocation invocation{core::HookPhase::prepare, {}, {}, std::nullopt, {}, std::nullopt, std::nullopt};
    auto answer = run_module_hook(run, hook, module_hook_context(run, hook, invocation, told), {}, audit);
    std::string field;
    if (answer) {
      auto verdict = map_module_result(core::HookPhase::prepare, *answer);
      std::optional<Refusal> refused;
      if (verdict.failure) refused = Refusal{"", *verdict.failure};
      for (const auto& [key, value] : verdict.run) {
        if (refused) break;
        refused = apply_run_field(std::string(key), value, inputs, env);
        rerender = rerender || key == "cwd";
      }
      if (!refused && !verdict.vars.empty()) {
        refused = apply_vars(verdict.vars, inputs.frozen);
        rerender = true;
      }
      if (refused) {
        audit.outcome = "failed";
        audit.message = refused->message;
        field = refused->field;
      } else {
        for (const auto& [key, value] : verdict.state) out.state[key] = told.state[key] = value;
        if (verdict.note) out.note = verdict.note;
        if (verdict.pinned) out.pinned = verdict.pinned;
        if (verdict.prompt) first_prompt = verdict.prompt;
        apply_patches(verdict.patch_tasks, inputs.tasks, audit);
        if (verdict.block) {
          audit.outcome = "blocked";
          audit.message = *verdict.block;
        }
      }
    }
    core::log_info("hook ran", {{"runId", run.id}, {"hookId", hook.id}, {"phase", "prepare"},
                                {"outcome", audit.outcome}, {"ms", std::to_string(audit.duration_ms)}});
    out.audits.push_back(audit);
    if (audit.outcome != "ok") return stopped_by(hook, audit, field);
  }
  if (rerender) render_run_inputs(inputs, env.context);
  // The first prompt a hook chose replaces the brief composed from the texts.
  if (first_prompt) inputs.frozen.brief = *first_prompt;
  return out;
}

core::Result<void> check_prepared_vars(const core::FrozenInputs& frozen) {
  auto specs = definitions::var_specs_from_json(frozen.var_specs);
  if (!specs) return specs.failure();
  return definitions::check_prepare_required_vars(*specs, frozen.vars);
}

void record_prepare_at_init(store::Transaction& c, const std::string& run_id, const PreparedAtInit& prepared) {
  if (prepared.audits.empty()) return;
  c.hook_audits().append(run_id, prepared.audits);
  c.hook_data().set(run_id, json::serialize(prepared.state));
}

}  // namespace agentry::engine
