#include "engine/run_inputs.hpp"

#include "engine/ad_hoc_agent.hpp"
#include "engine/run_overrides.hpp"
#include "definitions/loader.hpp"
#include "definitions/template.hpp"
#include "definitions/vars.hpp"
#include "environments/launch.hpp"

#include <boost/json/value_from.hpp>

#include <algorithm>

namespace agentry::engine {
namespace fs = std::filesystem;
namespace json = boost::json;
namespace defs = definitions;
using core::ErrorCode;

namespace {

/// `assignment_cwd`: the assignment's cwd, rendered with the run's vars.
core::Result<std::string> resolve_cwd(const InitRequest& r, const std::optional<std::string>& assignment_cwd,
                                      const RunInputContext& ctx) {
  std::optional<std::string> candidate = r.overrides.cwd;
  if (!candidate) candidate = assignment_cwd;
  if (!candidate) candidate = r.caller_cwd;
  if (!candidate) candidate = r.definition_cwd;
  if (!candidate || candidate->empty())
    return core::fail(ErrorCode::validation,
                      "no working directory: pass callerCwd or overrides.cwd, or set cwd in the assignment",
                      {{"field", "cwd"}});
  fs::path path(*candidate);
  if (path.is_relative()) {
    auto base = r.caller_cwd ? r.caller_cwd : r.definition_cwd;
    if (!base)
      return core::fail(ErrorCode::validation, "cwd '" + *candidate + "' is relative; pass callerCwd to resolve it",
                        {{"field", "cwd"}});
    path = fs::path(*base) / path;
  }
  std::error_code ec;
  const auto status = fs::status(path, ec);  // one stat for both questions
  if (!fs::exists(status) && ctx.cwd_only_elsewhere) {
    const std::string normal = path.lexically_normal().string();
    if (ctx.cwd_only_elsewhere(normal)) return normal;
  }
  if (!fs::is_directory(status))
    return core::fail(ErrorCode::validation, "working directory " + path.string() + " does not exist or is not a directory",
                      {{"field", "cwd"}, {"cwd", path.string()}});
  auto canonical = fs::canonical(path, ec);
  if (ec)
    return core::fail(ErrorCode::validation, "cannot resolve working directory " + path.string() + ": " + ec.message(),
                      {{"field", "cwd"}});
  return canonical.string();
}

/// The vars plus the keys agentry provides (definitions::builtin_template_keys()).
json::object template_context(const core::FrozenInputs& f, const RunInputContext& ctx, const std::string& cwd) {
  json::object context = f.vars;
  context["run_id"] = ctx.run_id;
  context["run_group_id"] = ctx.run_group_id;
  context["cwd"] = cwd;
  context["config_dir"] = ctx.config_dir.string();
  context["state_dir"] = ctx.state_dir.string();
  context["assignment_name"] = f.assignment_name;
  // In a container, agentry is the `agentry` on its PATH (docs/environments.md), no link.
  const bool in_container = f.environment && f.environment->kind == "container";
  context["agent_runner_cmd"] = in_container                 ? std::string("agentry agent-runner")
                                : ctx.agent_runner_cmd.empty() ? std::string("agent-runner")
                                                               : ctx.agent_runner_cmd;
  return context;
}

/// Renders `text`, noting the keys it leaves as written.
std::string render(std::string_view text, const json::object& context, std::string_view in,
                   std::vector<UnknownTemplateKey>& unknown) {
  auto rendered = defs::render_template(text, context);
  for (auto& key : rendered.unknown_keys) unknown.push_back({std::move(key), std::string(in)});
  return std::move(rendered.text);
}

/// The assignment's cwd with its `{{key}}`s filled from the run's vars (agent-runner's
/// `cwd: "{{repo_root}}"`, a var a parent passes down); `{{cwd}}` there is the caller's.
/// A key the run has no value for is refused: a directory with braces in its name is
/// never what was meant.
core::Result<std::optional<std::string>> render_assignment_cwd(const std::optional<std::string>& cwd,
                                                               const core::FrozenInputs& f, const RunInputContext& ctx,
                                                               const InitRequest& r) {
  if (!cwd || cwd->find("{{") == std::string::npos) return cwd;
  std::vector<UnknownTemplateKey> unknown;
  auto rendered = render(*cwd, template_context(f, ctx, r.caller_cwd.value_or("")), "cwd", unknown);
  if (!unknown.empty())
    return core::fail(ErrorCode::validation,
                      "the assignment's cwd '" + *cwd + "' names {{" + unknown.front().key +
                          "}}, which this run has no value for",
                      {{"field", "cwd"}, {"key", unknown.front().key}});
  return std::optional<std::string>(std::move(rendered));
}

/// Renders instructions, message and tasks into `f`.
RenderedTexts render_texts(core::FrozenInputs& f, const RunInputContext& ctx, const std::string& cwd) {
  const auto context = template_context(f, ctx, cwd);
  RenderedTexts out;
  for (const auto& item : f.task_templates) {
    const auto& t = item.as_object();
    const std::string id(t.at("id").as_string());
    auto title = render(t.at("title").as_string(), context, "tasks." + id + ".title", out.unknown_keys);
    auto body = render(t.at("body").as_string(), context, "tasks." + id + ".body", out.unknown_keys);
    out.tasks.push_back({id, std::move(title), std::move(body)});
  }
  f.agent_instructions = render(f.agent_instructions_template, context, "agentInstructions", out.unknown_keys);
  f.assignment_instructions =
      render(f.assignment_instructions_template, context, "assignmentInstructions", out.unknown_keys);
  f.message = render(f.message_template, context, "message", out.unknown_keys);
  f.caller_instructions = render(f.caller_instructions_template, context, "callerInstructions", out.unknown_keys);
  f.brief = compose_brief(f);
  return out;
}

defs::VarSource to_var_source(VarOrigin origin) {
  return origin == VarOrigin::cli ? defs::VarSource::cli : defs::VarSource::web;
}

/// FrozenInputs::var_sources for resolved vars: where each value came from, with values
/// from the environment (the run's own, or its parent's) marked redacted.
json::object var_sources(const std::vector<defs::VarSpec>& specs, const defs::ResolvedVars& resolved,
                         const RunInputContext& ctx) {
  json::object out;
  for (const auto& spec : specs) {
    if (resolved.values.at(spec.name).is_null()) continue;
    const auto origin = resolved.origins.find(spec.name);
    if (origin == resolved.origins.end()) {
      out[spec.name] = json::object{{"source", "default"}};
      continue;
    }
    json::object source{{"source", defs::to_string(origin->second)}};
    if (origin->second == defs::VarSource::env) {
      source["envName"] = spec.env_name();
      source["redacted"] = true;
    } else if (origin->second == defs::VarSource::parent) {
      source["inheritedFromRunId"] = ctx.parent_run_id;
      const auto* from = ctx.parent_var_sources ? ctx.parent_var_sources->if_contains(spec.name) : nullptr;
      if (from && from->is_object()) {
        const auto& parent_source = from->as_object();
        if (const auto* redacted = parent_source.if_contains("redacted"); redacted && redacted->is_bool() &&
                                                                          redacted->as_bool()) {
          source["redacted"] = true;
          if (const auto* env_name = parent_source.if_contains("envName")) source["envName"] = *env_name;
        }
      }
    }
    out[spec.name] = std::move(source);
  }
  return out;
}

}  // namespace

json::array to_json(const std::vector<UnknownTemplateKey>& keys) {
  json::array out;
  for (const auto& k : keys) out.push_back(json::object{{"key", k.key}, {"in", k.in}});
  return out;
}

std::string describe(const std::vector<UnknownTemplateKey>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k.key + " (" + k.in + ")";
  return out;
}

std::string find_repo_root(const fs::path& dir) {
  std::error_code ec;
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p / ".git", ec)) return p.string();
    if (p == p.root_path()) break;
  }
  return {};
}

std::string compose_brief(const core::FrozenInputs& f) {
  std::string brief;
  for (const std::string* part : {&f.agent_instructions, &f.assignment_instructions, &f.message}) {
    if (part->empty()) continue;
    if (!brief.empty()) brief += "\n\n";
    brief += *part;
  }
  return brief;
}

core::Result<ResolvedRunInputs> resolve_run_inputs(const InitRequest& r, const RunInputContext& ctx,
                                                   const BackendCatalog& backends) {
  const defs::Roots& roots = ctx.roots;
  std::optional<fs::path> path_base;
  if (r.definition_cwd) path_base = fs::path(*r.definition_cwd);
  else if (r.caller_cwd) path_base = fs::path(*r.caller_cwd);

  auto agent = requested_agent(r, roots, path_base);
  if (!agent) return agent.failure();
  std::optional<defs::AssignmentDefinition> assignment;
  if (r.assignment) {
    auto loaded = defs::load_assignment(roots, *r.assignment, path_base);
    if (!loaded) return loaded.failure();
    assignment = std::move(*loaded);
  }
  if (!assignment && !r.overrides.message)
    return core::fail(ErrorCode::validation, "nothing to do: give an assignment or overrides.message",
                      {{"field", "assignment"}});

  ResolvedRunInputs out;
  auto& f = out.frozen;
  f.agent_name = agent->name;
  f.agent_source_path = agent->source_path.string();
  f.backend = r.overrides.backend.value_or(agent->backend);
  if (auto ok = r.overrides.backend
                    ? check_backend_available(f.backend, backends, "overrides.backend", "overrides.backend names")
                    : check_backend_available(f.backend, backends, "backend", "agent '" + agent->name + "' uses");
      !ok)
    return ok.failure();
  f.locked_fields = agent->locked_fields;
  if (assignment) {
    f.assignment_name = assignment->name;
    f.assignment_source_path = assignment->source_path.string();
    out.schedule = assignment->schedule;  // applied by init (engine/schedules/schedule_commands.cpp)
    for (const auto& field : assignment->locked_fields)
      if (!locked(f.locked_fields, field)) f.locked_fields.push_back(field);
  }
  if (auto ok = check_overrides(r.overrides, f.locked_fields); !ok) return ok.failure();
  // A passive run starts no program, so nothing it is given can choose one.
  if (f.backend != core::passive_backend)
    if (auto ok = check_default_locks(r.overrides, *agent); !ok) return ok.failure();

  std::vector<defs::VarSpec> specs = assignment ? assignment->vars : std::vector<defs::VarSpec>{};
  auto vars = defs::resolve_var_values(specs, r.cli_vars, to_var_source(r.var_origin), defs::process_env(),
                                       ctx.parent_vars);
  if (!vars) return vars.failure();
  f.var_sources = var_sources(specs, *vars, ctx);
  f.vars = std::move(vars->values);
  f.var_specs = defs::var_specs_to_json(specs);
  f.cli_vars = r.cli_vars;
  auto assignment_cwd = render_assignment_cwd(assignment ? assignment->cwd : std::nullopt, f, ctx, r);
  if (!assignment_cwd) return assignment_cwd.failure();
  auto cwd = resolve_cwd(r, *assignment_cwd, ctx);
  if (!cwd) return cwd.failure();
  out.cwd = *cwd;
  // A directory only another member has is looked at there (engine/placement/).
  std::error_code here;
  out.repo_root = fs::is_directory(out.cwd, here) ? find_repo_root(out.cwd) : std::string();

  f.model = r.overrides.model.value_or(agent->model.value_or(""));
  f.effort = r.overrides.effort.value_or(agent->effort.value_or(""));
  f.timeout_sec = r.overrides.timeout_sec.value_or(agent->timeout_sec);
  f.budget = r.overrides.budget                 ? r.overrides.budget
             : assignment && assignment->budget ? assignment->budget
                                                : agent->budget;
  f.unrestricted = r.overrides.unrestricted.value_or(agent->unrestricted);
  f.task_prompt = agent->task_prompt && (!assignment || assignment->task_prompt);
  f.backend_config = defs::backend_config_for(*agent, f.backend);
  if (r.overrides.backend_config) {
    auto config = override_config_for(*r.overrides.backend_config, f.backend, backends);
    if (!config) return config.failure();
    for (const auto& [key, value] : *config) f.backend_config[key] = value;
  }
  f.extra_args = defs::extra_args_for(*agent, f.backend);
  f.max_attempts_per_session = r.overrides.max_retries.value_or(assignment ? assignment->max_retries : 3) + 1;
  f.caller_instructions_template = assignment ? assignment->caller_instructions : "";
  f.notify = agent->notify;
  if (assignment) f.notify.insert(f.notify.end(), assignment->notify.begin(), assignment->notify.end());
  f.notify.insert(f.notify.end(), r.notify.begin(), r.notify.end());
  f.placement_labels = agent->placement_labels;
  for (const auto& label : r.placement_labels)
    if (std::find(f.placement_labels.begin(), f.placement_labels.end(), label) == f.placement_labels.end())
      f.placement_labels.push_back(label);
  // Frozen with the run: the worktree option (the assignment's, else the agent's) as
  // the first prepare hook, the assignment's hooks, then each task's, their ids made
  // unique as "<taskId>/<hookId>".
  if (auto worktree = assignment && assignment->worktree ? assignment->worktree : agent->worktree) {
    const bool declared = assignment && std::any_of(assignment->hooks.begin(), assignment->hooks.end(), [](const auto& h) {
                            return h.builtin == core::builtin_git_worktree || h.id == "worktree";
                          });
    if (!declared) f.hooks.push_back(*worktree);
  }
  if (assignment) {
    f.hooks.insert(f.hooks.end(), assignment->hooks.begin(), assignment->hooks.end());
    for (const auto& t : assignment->tasks)
      for (auto hook : t.hooks) {
        hook.id = t.id + "/" + hook.id;
        f.hooks.push_back(std::move(hook));
      }
  }

  // The request's launcher, else the agent's (inline or by name); `direct`, built in,
  // is none (agent-runner's name for starting the agent as it is).
  if (auto launcher_name = r.overrides.launcher ? r.overrides.launcher : agent->launcher) {
    if (*launcher_name != defs::direct_launcher) {
      auto launcher = defs::load_launcher(roots, *launcher_name, path_base);
      if (!launcher) return launcher.failure();
      f.launcher = defs::to_frozen_launcher(*launcher);
    }
  } else if (agent->inline_launcher) {
    f.launcher = core::FrozenLauncher{"inline", *agent->inline_launcher, {}};
  }
  // The environment is frozen whole (not by name): later edits of its file change no run.
  if (auto environment_name = r.overrides.environment ? r.overrides.environment : agent->execution_environment) {
    auto environment = defs::load_environment(roots, *environment_name, path_base);
    if (!environment) return environment.failure();
    f.environment = defs::to_frozen_environment(*environment);
    if (auto ok = environments::check_launchable(*f.environment, f.backend, f.backend_config); !ok)
      return ok.failure();
  }


  f.agent_instructions_template = agent->instructions;
  f.assignment_instructions_template = assignment ? assignment->instructions : "";
  f.message_template = r.overrides.message.value_or(assignment ? assignment->message.value_or("") : "");
  if (assignment)
    for (const auto& t : assignment->tasks)
      f.task_templates.push_back(json::object{{"id", t.id}, {"title", t.title}, {"body", t.body}});
  auto rendered = render_texts(f, ctx, out.cwd);
  out.unknown_template_keys = std::move(rendered.unknown_keys);

  for (std::size_t i = 0; i < rendered.tasks.size(); ++i) {
    core::Task task;
    task.id = rendered.tasks[i].id;
    task.title = std::move(rendered.tasks[i].title);
    task.body = std::move(rendered.tasks[i].body);
    task.source = assignment->tasks[i].source;
    task.position = static_cast<int>(i);
    out.tasks.push_back(std::move(task));
  }
  return out;
}

void render_run_inputs(ResolvedRunInputs& out, const RunInputContext& ctx) {
  auto rendered = render_texts(out.frozen, ctx, out.cwd);
  out.unknown_template_keys = std::move(rendered.unknown_keys);
  for (auto& task : out.tasks)
    for (auto& text : rendered.tasks)
      if (text.id == task.id) {
        task.title = std::move(text.title);
        task.body = std::move(text.body);
      }
}

core::Result<RenderedTexts> reconfigure_inputs(core::FrozenInputs& frozen, const ReconfigureRequest& r,
                                               const RunInputContext& ctx, const std::string& cwd) {
  core::FrozenInputs next = frozen;
  if (r.message) {
    if (locked(next.locked_fields, "message"))
      return core::fail(ErrorCode::conflict, "the message is locked by the agent or assignment definition",
                        {{"field", "message"}});
    next.message_template = *r.message;
  }
  if (r.vars) {
    for (const auto& [name, value] : *r.vars) {
      if (locked(next.locked_fields, "vars") || locked(next.locked_fields, "vars." + std::string(name)))
        return core::fail(ErrorCode::conflict, "var '" + std::string(name) + "' is locked by the definition",
                          {{"field", "vars." + std::string(name)}});
      if (value.is_null()) next.cli_vars.erase(name);
      else next.cli_vars[name] = value;
    }
    auto specs = defs::var_specs_from_json(next.var_specs);
    if (!specs) return specs.failure();
    auto vars = defs::resolve_var_values(*specs, next.cli_vars, to_var_source(r.var_origin), defs::process_env(),
                                         ctx.parent_vars);
    if (!vars) return vars.failure();
    next.var_sources = var_sources(*specs, *vars, ctx);
    next.vars = std::move(vars->values);
    // What a module prepare hook set stays, unless the caller sets it now.
    for (const auto& [name, source] : frozen.var_sources) {
      const auto* kind = source.is_object() ? source.as_object().if_contains("source") : nullptr;
      if (!kind || *kind != "hook" || r.vars->contains(name) || !frozen.vars.contains(name)) continue;
      next.vars[name] = frozen.vars.at(name);
      next.var_sources[name] = source;
    }
  }
  auto texts = render_texts(next, ctx, cwd);
  frozen = std::move(next);
  return texts;
}

}  // namespace agentry::engine
