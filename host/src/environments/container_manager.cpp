#include "environments/container_manager.hpp"

#include "environments/container_command.hpp"
#include "process/runner.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <system_error>

namespace agentry::environments {
namespace json = boost::json;
namespace fs = std::filesystem;
namespace {

constexpr auto step_timeout = std::chrono::minutes(30);   // an image's `npm install`
constexpr auto create_timeout = std::chrono::minutes(10);  // a pull of a large image

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string hex(std::uint64_t value, int digits) {
  static constexpr char d[] = "0123456789abcdef";
  std::string out(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, value >>= 4) out[static_cast<std::size_t>(i)] = d[value & 15];
  return out;
}

std::string safe_name(const std::string& id) {
  std::string out;
  for (char c : id)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-') ? c : '_';
  return out;
}

json::array strings(const std::vector<std::string>& items) {
  json::array out;
  for (const auto& s : items) out.emplace_back(s);
  return out;
}

}  // namespace

namespace {

const char* const made_marker = "containers-made";

/// Left before the first `run -d`, so a crash between the two still leaves it.
void leave_made_marker(const std::string& owner) {
  const fs::path marker = fs::path(owner) / made_marker;
  std::error_code ec;
  if (fs::exists(marker, ec)) return;
  std::ofstream(marker) << "A daemon of this agentry home made a container: restarts look for leftovers.\n";
}

}  // namespace

ContainerManager::ContainerManager(std::string owner) : owner_(std::move(owner)) {}

bool ContainerManager::ever_made() const {
  std::error_code ec;
  return fs::exists(fs::path(owner_) / made_marker, ec);
}

void ContainerManager::set_agentry_binary(std::string path) {
  std::lock_guard lock(mutex_);
  agentry_binary_ = std::move(path);
}

void ContainerManager::set_daemon_socket(std::string path) {
  std::lock_guard lock(mutex_);
  daemon_socket_ = std::move(path);
}

std::string ContainerManager::agentry_binary() const {
  std::lock_guard lock(mutex_);
  return agentry_binary_;
}

std::string ContainerManager::fingerprint(const core::FrozenEnvironment& environment) {
  json::array mounts;
  for (const auto& m : environment.mounts)
    mounts.push_back(json::object{{"source", m.source}, {"target", m.target}, {"readOnly", m.read_only}});
  json::object all{{"name", environment.name}, {"network", environment.network}, {"mounts", std::move(mounts)},
                   {"env", environment.env}};
  if (environment.container) all["container"] = core::to_json(*environment.container);
  return hex(fnv1a(json::serialize(all)), 16);
}

std::string ContainerManager::container_name(const core::FrozenEnvironment& environment, const std::string& run_id,
                                             const std::string& group_id) {
  const auto& spec = *environment.container;
  if (spec.mode == "existing") return spec.container;
  if (!spec.container_name.empty()) {
    // Its own name, with the tokens a name can know before the workspace exists.
    const std::map<std::string, std::string> tokens{{"run_id", run_id}, {"run_group_id", group_id}};
    if (auto rendered = render_tokens(spec.container_name, tokens)) return *rendered;
  }
  if (spec.lifetime == "group") return "agentry-" + safe_name(group_id) + "-" + fingerprint(environment).substr(0, 8);
  return "agentry-" + safe_name(run_id);
}

std::shared_ptr<std::mutex> ContainerManager::lock_for(const std::string& container) {
  std::lock_guard lock(mutex_);
  auto& slot = container_locks_[container];
  if (!slot) slot = std::make_shared<std::mutex>();
  return slot;
}

core::Result<ContainerPlacement> ContainerManager::acquire(const ContainerRequest& request,
                                                           std::vector<ContainerAction>& actions) {
  const auto& environment = *request.environment;
  if (!environment.container) return environment_refusal(environment, "is not a container environment", "not_supported");
  if (environment.container->mode == "existing") return acquire_existing(request, actions);
  return acquire_managed(request, actions);
}

core::Result<ContainerManager::Resolved> ContainerManager::resolve(const ContainerRequest& request,
                                                                   const std::string& host_root) const {
  const auto& environment = *request.environment;
  Resolved r;
  r.spec = *environment.container;
  auto& spec = r.spec;
  r.tokens = {{"cwd", request.cwd},           {"run_id", request.run_id},     {"run_group_id", request.group_id},
              {"state_dir", owner_},          {"config_dir", config_dir_},    {"agent_runner_cmd", "agentry"}};
  std::string failed;
  auto render = [&](std::string& text, const char* field) {
    std::string unknown;
    if (auto done = render_tokens(text, r.tokens, &unknown)) text = std::move(*done);
    else if (failed.empty()) failed = std::string(field) + ": unknown token {{" + unknown + "}}";
  };
  // The workspace: `hostPath`, `<hostRoot>/<run or group id>`, or (no block) the run's
  // cwd, at the same path; a group's container keeps the one it was made with.
  if (!host_root.empty()) {
    r.host_root = host_root;
  } else if (spec.workspace) {
    if (!spec.workspace_host.empty()) {
      r.host_root = spec.workspace_host;
      render(r.host_root, "workspace.hostPath");
    } else {
      r.host_root = spec.workspace_host_root;
      render(r.host_root, "workspace.hostRoot");
      r.host_root += "/" + (spec.workspace_scope == "group" ? request.group_id : request.run_id);
    }
  } else {
    r.host_root = request.cwd;
  }
  r.inside_root = spec.workspace ? spec.workspace_container : r.host_root;
  render(r.inside_root, "workspace.containerPath");
  r.tokens["workspace_host_path"] = r.host_root;
  r.tokens["workspace_container_path"] = r.inside_root;
  r.cwd = spec.cwd;
  render(r.cwd, "cwd");
  for (auto& m : request.environment->mounts) {
    core::Mount mount = m;
    render(mount.source, "mounts.hostPath");
    render(mount.target, "mounts.containerPath");
    r.mounts.push_back(std::move(mount));
  }
  for (auto& m : spec.expected_mounts) {
    render(m.source, "expectedMounts.hostPath");
    render(m.target, "expectedMounts.containerPath");
  }
  for (auto* steps : {&spec.after_start, &spec.on_workspace_create})
    for (auto& step : *steps) {
      for (auto& word : step.command) render(word, "lifecycle command");
      render(step.cwd, "lifecycle cwd");
      render(step.source, "lifecycle source");
      render(step.branch, "lifecycle branch");
      render(step.base_ref, "lifecycle baseRef");
    }
  render(spec.container, "container");
  if (!failed.empty()) return environment_refusal(environment, failed, "bad_template");
  for (const auto* path : {&r.host_root, &r.inside_root, &r.cwd})
    if (path->empty() || path->front() != '/')
      return environment_refusal(environment, "'" + *path + "' is not an absolute path (after its {{tokens}})",
                                 "bad_path");
  const char* home = std::getenv("HOME");
  const char* codex_home = std::getenv("CODEX_HOME");
  for (auto& m : session_mount_paths(spec.session_mounts, request.backend, home ? home : "", codex_home ? codex_home : ""))
    r.mounts.push_back(std::move(m));
  return r;
}

core::Result<ContainerPlacement> ContainerManager::acquire_managed(const ContainerRequest& request,
                                                                   std::vector<ContainerAction>& actions) {
  const auto& environment = *request.environment;
  const auto& spec = *environment.container;
  const ContainerEngine engine(spec.engine, spec.engine_args);
  const std::string name = container_name(environment, request.run_id, request.group_id);
  const std::string print = fingerprint(environment);
  auto container_lock = lock_for(name);
  std::lock_guard serial(*container_lock);

  EngineResult failure;
  auto state = engine.inspect(name, &failure);
  if (!state && !failure.error.empty()) {
    actions.push_back({"environment.failed", {{"container", name}, {"stage", "inspect"}, {"error", failure.error}}});
    return environment_refusal(environment, failure.error, failure.engine_missing ? "engine_missing" : "engine_failed");
  }
  if (state && state->labels["agentry.owner"] != owner_) {
    // Same name, someone else's: never reuse or remove what this home did not make.
    return environment_refusal(
        environment, "a container named '" + name + "' exists that this agentry did not create; remove or rename it",
        "name_taken");
  }
  if (state && state->labels["agentry.spec"] != print) {
    // The environment changed since (a group's next run froze a newer definition under
    // the same group), or a leftover of an older agentry: start afresh.
    remove(engine, name, "its settings changed", actions);
    state.reset();
  }
  auto resolved = resolve(request, state ? state->labels["agentry.workspace"] : std::string());
  if (!resolved) return resolved.failure();
  const Resolved& r = *resolved;
  bool new_user = false;
  {
    std::lock_guard lock(mutex_);
    new_user = !users_[name].count(request.run_id);
  }
  if (!state) {
    if (auto created = create(engine, name, r, request, actions); !created) return created.failure();
  } else if (!state->running) {
    actions.push_back({"environment.container_stopped",
                       {{"container", name}, {"status", state->status}, {"exitCode", state->exit_code},
                        {"oomKilled", state->oom_killed}}});
    auto started = engine.run({"start", name}, {}, std::chrono::minutes(2), request.cancelled);
    if (!started.ok) {
      actions.push_back({"environment.failed", {{"container", name}, {"stage", "start"}, {"error", started.error}}});
      return environment_refusal(environment, "cannot restart its container '" + name + "': " + started.error,
                                 "start_failed");
    }
    actions.push_back({"environment.container_started", {{"container", name}}});
    if (auto steps = run_steps(engine, name, r, "afterStart", r.spec.after_start, request, actions); !steps)
      return steps.failure();
  } else if (new_user) {
    actions.push_back({"environment.container_reused", {{"container", name}}});
    if (auto steps = run_steps(engine, name, r, "afterStart", r.spec.after_start, request, actions); !steps)
      return steps.failure();
  }
  if (spec.workspace && !r.spec.on_workspace_create.empty()) {
    // Once per host workspace, recorded beside it (not in it: the checkout stays clean).
    const fs::path workspace(r.host_root);
    const fs::path marker = workspace.parent_path() / ("." + workspace.filename().string() + ".agentry-workspace-created");
    if (!fs::exists(marker)) {
      if (auto steps = run_steps(engine, name, r, "onWorkspaceCreate", r.spec.on_workspace_create, request, actions);
          !steps) {
        if (!state) remove(engine, name, "its onWorkspaceCreate step failed", actions);
        return steps.failure();
      }
      std::ofstream(marker) << request.run_id << "\n";
    }
  }

  auto workdir = inside_path(r.host_root, r.inside_root, r.cwd);
  if (!workdir)
    return environment_refusal(environment,
                               "the cwd " + r.cwd + " is outside the workspace " + r.host_root + " of container '" +
                                   name + "'; set workspace.hostPath (or cwd) so that it holds the cwd of every run",
                               "cwd_outside_workspace");
  ContainerPlacement placement{name, *workdir, false};
  {
    std::lock_guard lock(mutex_);
    users_[name].insert(request.run_id);
    placement.daemon_socket = !daemon_socket_.empty();
  }
  return placement;
}

core::Result<void> ContainerManager::create(const ContainerEngine& engine, const std::string& name, const Resolved& r,
                                            const ContainerRequest& request, std::vector<ContainerAction>& actions) {
  const auto& environment = *request.environment;
  const auto& spec = *environment.container;
  if (spec.workspace && spec.workspace_create) {
    std::error_code ec;
    fs::create_directories(r.host_root, ec);
    if (ec)
      return environment_refusal(environment, "cannot create its workspace " + r.host_root + ": " + ec.message(),
                                 "bad_path");
  }
  ContainerRunInputs inputs{name,        owner_, request.run_id, request.group_id, r.host_root, r.inside_root,
                            fingerprint(environment), {}, {}, r.mounts};
  {
    std::lock_guard lock(mutex_);
    inputs.agentry_binary = agentry_binary_;
    inputs.daemon_socket = daemon_socket_;
  }
  auto args = container_run_args(environment, inputs);
  if (!args) return args.failure();
  leave_made_marker(owner_);
  auto created = engine.run(*args, environment_values(environment), create_timeout, request.cancelled);
  if (!created.ok) {
    actions.push_back({"environment.failed",
                       {{"container", name}, {"stage", "create"}, {"image", spec.image}, {"error", created.error}}});
    // A failed `run -d` can leave the container created but not started.
    engine.remove(name);
    return environment_refusal(environment, "cannot start a container from image '" + spec.image + "': " + created.error,
                               created.engine_missing ? "engine_missing" : "create_failed");
  }
  actions.push_back({"environment.container_created",
                     {{"container", name},
                      {"engine", spec.engine},
                      {"image", spec.image},
                      {"network", environment.network},
                      {"lifetime", spec.lifetime},
                      {"workspace", r.host_root}}});
  if (auto steps = run_steps(engine, name, r, "afterStart", r.spec.after_start, request, actions); !steps) {
    remove(engine, name, "its afterStart step failed", actions);
    return steps.failure();
  }
  return core::ok();
}

core::Result<void> ContainerManager::run_steps(const ContainerEngine& engine, const std::string& container,
                                               const Resolved& r, const char* phase,
                                               const std::vector<core::ContainerStep>& steps,
                                               const ContainerRequest& request, std::vector<ContainerAction>& actions) {
  const auto& environment = *request.environment;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& step = steps[i];
    const bool inside = step.target == "container";
    const std::string workdir = !step.cwd.empty() ? step.cwd : inside ? r.inside_root : r.host_root;
    auto env = environment_values(environment);
    for (const auto& [key, value] : step.env)
      if (value.is_string()) env.emplace_back(std::string(key), std::string(value.as_string()));
    const auto timeout = step.timeout_ms > 0 ? std::chrono::milliseconds(step.timeout_ms)
                                             : std::chrono::duration_cast<std::chrono::milliseconds>(step_timeout);
    for (const auto& command : step_commands(step, workdir)) {
      EngineResult result;
      if (inside) {
        result = engine.run(container_exec_args(environment, container, workdir, step, command), env, timeout,
                            request.cancelled);
      } else {
        result = run_on_host(command, workdir, env, timeout, request.cancelled);
      }
      json::object data{{"container", container}, {"phase", phase},  {"step", i},
                        {"target", step.target},  {"command", strings(command)}, {"exitCode", result.exit_code}};
      if (!result.ok) {
        data["error"] = result.error;
        actions.push_back({"environment.step_failed", std::move(data)});
        return environment_refusal(
            environment, std::string(phase) + " step " + std::to_string(i + 1) + " failed: " + result.error,
            "step_failed");
      }
      actions.push_back({"environment.step", std::move(data)});
    }
  }
  return core::ok();
}

core::Result<ContainerPlacement> ContainerManager::acquire_existing(const ContainerRequest& request,
                                                                    std::vector<ContainerAction>& actions) {
  const auto& environment = *request.environment;
  auto resolved = resolve(request, {});
  if (!resolved) return resolved.failure();
  const Resolved& r = *resolved;
  const auto& spec = r.spec;
  const ContainerEngine engine(spec.engine, spec.engine_args);
  auto container_lock = lock_for(spec.container);
  std::lock_guard serial(*container_lock);
  EngineResult failure;
  auto state = engine.inspect(spec.container, &failure);
  if (!state) {
    const std::string why = failure.error.empty() ? "the container '" + spec.container + "' does not exist" : failure.error;
    actions.push_back({"environment.failed", {{"container", spec.container}, {"stage", "inspect"}, {"error", why}}});
    return environment_refusal(environment, why, failure.engine_missing ? "engine_missing" : "container_missing");
  }
  auto refuse_with = [&](const std::string& why, const char* reason) {
    actions.push_back({"environment.failed", {{"container", spec.container}, {"stage", "validate"}, {"error", why}}});
    return environment_refusal(environment, why, reason);
  };
  if (!state->running)
    return refuse_with("the container '" + spec.container + "' is not running (" + state->status + ", exit code " +
                           std::to_string(state->exit_code) + "); agentry does not start containers it does not manage",
                       "container_stopped");
  // expectedMounts are checked, never added: a running container's mounts are fixed.
  for (const auto& expected : spec.expected_mounts) {
    const bool found = std::any_of(state->mounts.begin(), state->mounts.end(), [&](const core::Mount& m) {
      return m.source == expected.source && m.target == expected.target && (expected.read_only || !m.read_only);
    });
    if (!found)
      return refuse_with("the container '" + spec.container + "' does not mount " + expected.source + " at " +
                             expected.target + (expected.read_only ? " (ro)" : " (rw)") + ", as expectedMounts says",
                         "mount_missing");
  }
  // The cwd inside: through the container's own bind that shows it.
  std::optional<std::string> workdir;
  for (const auto& m : state->mounts)
    if (!m.source.empty() && !m.target.empty())
      if (auto inside = inside_path(m.source, m.target, r.cwd)) workdir = inside;
  if (!workdir)
    return refuse_with("the container '" + spec.container + "' does not show the cwd " + r.cwd +
                           " (no mount of it); mount it there, or set cwd to a path it mounts",
                       "cwd_outside_workspace");
  {
    std::lock_guard lock(mutex_);
    if (users_[spec.container].insert(request.run_id).second)
      actions.push_back({"environment.container_used", {{"container", spec.container}, {"id", state->id}}});
  }
  return ContainerPlacement{spec.container, *workdir, false};
}

EngineResult ContainerManager::run_on_host(const std::vector<std::string>& command, const std::string& cwd,
                                           const std::vector<std::pair<std::string, std::string>>& env,
                                           std::chrono::milliseconds timeout, const std::function<bool()>& cancelled) {
  process::RunLimits limits;
  limits.timeout = timeout;
  limits.cancelled = cancelled;
  const auto r = process::run_program({command, {}, env, cwd}, limits);
  EngineResult out;
  if (r.exit_code) out.exit_code = *r.exit_code;
  out.ok = r.exit_code && *r.exit_code == 0;
  out.out = r.stdout_text;
  if (!out.ok) out.error = r.error + (r.stderr_text.empty() ? "" : ": " + process::first_line(r.stderr_text, 600));
  return out;
}

void ContainerManager::remove(const ContainerEngine& engine, const std::string& name, const std::string& why,
                              std::vector<ContainerAction>& actions) {
  auto removed = engine.remove(name);
  if (removed.ok) actions.push_back({"environment.container_removed", {{"container", name}, {"why", why}}});
  else
    actions.push_back(
        {"environment.failed", {{"container", name}, {"stage", "remove"}, {"why", why}, {"error", removed.error}}});
}

void ContainerManager::release(const std::string& run_id, const std::string& group_id,
                               const core::FrozenEnvironment& environment, std::vector<ContainerAction>& actions) {
  if (!environment.container) return;
  const auto& spec = *environment.container;
  const std::string name = container_name(environment, run_id, group_id);
  auto container_lock = lock_for(name);
  std::lock_guard serial(*container_lock);
  bool unused = false;
  {
    std::lock_guard lock(mutex_);
    auto& users = users_[name];
    users.erase(run_id);
    unused = users.empty();
    if (spec.mode == "existing") prepared_[name].erase(run_id);
  }
  if (spec.mode != "managed" || spec.cleanup != "terminal" || !unused) return;
  remove(ContainerEngine(spec.engine, spec.engine_args), name,
         spec.lifetime == "group" ? "the last live run of its group ended" : "the run's session ended", actions);
}

void ContainerManager::run_deleted(const std::string& run_id, const std::string& group_id,
                                   const core::FrozenEnvironment& environment, bool last_of_group,
                                   std::vector<ContainerAction>& actions) {
  if (!environment.container) return;
  const auto& spec = *environment.container;
  // Deleting a run removes its container whatever the policy (a terminal one is gone by now).
  if (spec.mode != "managed") return;
  if (spec.lifetime == "group" && !last_of_group) return;
  const std::string name = container_name(environment, run_id, group_id);
  auto container_lock = lock_for(name);
  std::lock_guard serial(*container_lock);
  {
    std::lock_guard lock(mutex_);
    if (!users_[name].empty()) return;  // a live run still uses it
  }
  remove(ContainerEngine(spec.engine, spec.engine_args), name, "its run was deleted", actions);
}

std::optional<std::string> ContainerManager::stopped_under(const std::string& run_id, const std::string& group_id,
                                                          const core::FrozenEnvironment& environment) {
  if (!environment.container) return std::nullopt;
  const auto& spec = *environment.container;
  const std::string name = container_name(environment, run_id, group_id);
  EngineResult failure;
  auto state = ContainerEngine(spec.engine, spec.engine_args).inspect(name, &failure);
  if (!failure.error.empty()) return std::nullopt;  // the engine cannot say: nothing to add
  if (!state) return "the container '" + name + "' was removed while the agent ran";
  if (state->running) return std::nullopt;
  return "the container '" + name + "' stopped while the agent ran (" + state->status + ", exit code " +
         std::to_string(state->exit_code) + (state->oom_killed ? ", out of memory" : "") + ")";
}

}  // namespace agentry::environments
