#include "environments/container_manager.hpp"

#include "environments/container_command.hpp"

#include <boost/json/serialize.hpp>

#include <cstdint>
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

ContainerManager::ContainerManager(std::string owner) : owner_(std::move(owner)) {}

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
    return environment_refusal(environment,
                  "a container named '" + name + "' exists that this agentry did not create; remove or rename it",
                  "name_taken");
  }
  if (state && state->labels["agentry.spec"] != print) {
    // The environment changed since (a group's next run froze a newer definition under
    // the same group), or a leftover of an older agentry: start afresh.
    remove(engine, name, "its settings changed", actions);
    state.reset();
  }
  std::string host_root;
  if (state) {
    host_root = state->labels["agentry.workspace"];
    if (!state->running) {
      actions.push_back({"environment.container_stopped",
                         {{"container", name}, {"status", state->status}, {"exitCode", state->exit_code},
                          {"oomKilled", state->oom_killed}}});
      auto started = engine.run({"start", name}, {}, std::chrono::minutes(2), request.cancelled);
      if (!started.ok) {
        actions.push_back({"environment.failed", {{"container", name}, {"stage", "start"}, {"error", started.error}}});
        return environment_refusal(environment, "cannot restart its container '" + name + "': " + started.error, "start_failed");
      }
      actions.push_back({"environment.container_started", {{"container", name}}});
      if (auto steps = run_steps(engine, name, spec.workspace_container.empty() ? host_root : spec.workspace_container,
                                 "afterStart", spec.after_start, request, actions);
          !steps)
        return steps.failure();
    } else if (!users_[name].count(request.run_id)) {
      actions.push_back({"environment.container_reused", {{"container", name}}});
    }
  } else {
    host_root = spec.workspace_host.empty() ? request.cwd : spec.workspace_host;
    if (auto created = create(engine, name, host_root, request, actions); !created) return created.failure();
  }

  const std::string inside_root = spec.workspace_container.empty() ? host_root : spec.workspace_container;
  auto workdir = inside_path(host_root, inside_root, request.cwd);
  if (!workdir)
    return environment_refusal(environment,
                  "the run's cwd " + request.cwd + " is outside the workspace " + host_root + " mounted in container '" +
                      name + "'; set workspace.hostPath to a directory that holds the cwd of every run of the group",
                  "cwd_outside_workspace");
  {
    std::lock_guard lock(mutex_);
    users_[name].insert(request.run_id);
  }
  ContainerPlacement placement{name, *workdir, false};
  {
    std::lock_guard lock(mutex_);
    placement.daemon_socket = !daemon_socket_.empty();
  }
  return placement;
}

core::Result<void> ContainerManager::create(const ContainerEngine& engine, const std::string& name,
                                            const std::string& host_root, const ContainerRequest& request,
                                            std::vector<ContainerAction>& actions) {
  const auto& environment = *request.environment;
  const auto& spec = *environment.container;
  ContainerRunInputs inputs{name, owner_, request.run_id, request.group_id, host_root, fingerprint(environment), {}, {}};
  {
    std::lock_guard lock(mutex_);
    inputs.agentry_binary = agentry_binary_;
    inputs.daemon_socket = daemon_socket_;
  }
  for (const auto& m : spec.session_mounts) {
    std::error_code ec;
    fs::create_directories(m.source, ec);
    if (ec)
      return environment_refusal(environment, "cannot create its session mount " + m.source + " on the host: " + ec.message(),
                    "bad_path");
  }
  auto args = container_run_args(environment, inputs);
  if (!args) return args.failure();
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
                      {"workspace", host_root}}});
  const std::string inside_root = spec.workspace_container.empty() ? host_root : spec.workspace_container;
  if (auto steps = run_steps(engine, name, inside_root, "afterStart", spec.after_start, request, actions); !steps) {
    remove(engine, name, "its afterStart step failed", actions);
    return steps.failure();
  }
  if (auto steps = run_steps(engine, name, inside_root, "onWorkspaceCreate", spec.on_workspace_create, request, actions);
      !steps) {
    remove(engine, name, "its onWorkspaceCreate step failed", actions);
    return steps.failure();
  }
  return core::ok();
}

core::Result<void> ContainerManager::run_steps(const ContainerEngine& engine, const std::string& container,
                                               const std::string& workdir, const char* phase,
                                               const std::vector<core::ContainerStep>& steps,
                                               const ContainerRequest& request, std::vector<ContainerAction>& actions) {
  const auto& environment = *request.environment;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    auto r = engine.run(container_step_args(environment, container, workdir, steps[i]), environment_values(environment),
                        step_timeout, request.cancelled);
    json::object data{{"container", container},
                      {"phase", phase},
                      {"step", i},
                      {"command", strings(step_command(steps[i], workdir))},
                      {"exitCode", r.exit_code}};
    if (!r.ok) {
      data["error"] = r.error;
      actions.push_back({"environment.step_failed", std::move(data)});
      return environment_refusal(environment, std::string(phase) + " step " + std::to_string(i + 1) + " failed: " + r.error,
                                 "step_failed");
    }
    actions.push_back({"environment.step", std::move(data)});
  }
  return core::ok();
}

core::Result<ContainerPlacement> ContainerManager::acquire_existing(const ContainerRequest& request,
                                                                    std::vector<ContainerAction>& actions) {
  const auto& environment = *request.environment;
  const auto& spec = *environment.container;
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
  if (!state->running) {
    const std::string why = "the container '" + spec.container + "' is not running (" + state->status +
                            ", exit code " + std::to_string(state->exit_code) + "); agentry does not start containers it "
                            "does not manage";
    actions.push_back({"environment.failed", {{"container", spec.container}, {"stage", "inspect"}, {"error", why}}});
    return environment_refusal(environment, why, "container_stopped");
  }
  std::optional<std::string> workdir;
  if (!spec.workspace_host.empty()) {
    workdir = inside_path(spec.workspace_host,
                          spec.workspace_container.empty() ? spec.workspace_host : spec.workspace_container, request.cwd);
  } else {
    // The owner mounted the workspace: find the bind that shows the run's cwd.
    for (const auto& m : state->mounts)
      if (!m.source.empty() && !m.target.empty())
        if (auto inside = inside_path(m.source, m.target, request.cwd)) workdir = inside;
  }
  if (!workdir)
    return environment_refusal(environment,
                  "the container '" + spec.container + "' does not show the run's cwd " + request.cwd +
                      " (no mount of it); mount it there, or set workspace.hostPath and workspace.containerPath",
                  "cwd_outside_workspace");
  bool first = false;
  {
    std::lock_guard lock(mutex_);
    first = prepared_[spec.container].insert(request.run_id).second;
    users_[spec.container].insert(request.run_id);
  }
  if (first) {
    actions.push_back({"environment.container_used", {{"container", spec.container}, {"id", state->id}}});
    if (auto steps = run_steps(engine, spec.container, *workdir, "onWorkspaceCreate", spec.on_workspace_create, request,
                               actions);
        !steps)
      return steps.failure();
  }
  return ContainerPlacement{spec.container, *workdir, false};
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
  if (spec.mode != "managed" || spec.cleanup != "session-end" || !unused) return;
  remove(ContainerEngine(spec.engine, spec.engine_args), name,
         spec.lifetime == "group" ? "the last live run of its group ended" : "the run's session ended", actions);
}

void ContainerManager::run_deleted(const std::string& run_id, const std::string& group_id,
                                   const core::FrozenEnvironment& environment, bool last_of_group,
                                   std::vector<ContainerAction>& actions) {
  if (!environment.container) return;
  const auto& spec = *environment.container;
  if (spec.mode != "managed" || spec.cleanup != "run-delete") return;
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
