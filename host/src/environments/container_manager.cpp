#include "environments/container_manager.hpp"

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

core::Failure refuse(const core::FrozenEnvironment& environment, const std::string& why, std::string_view reason) {
  return core::fail(core::ErrorCode::validation, "environment '" + environment.name + "': " + why,
                    {{"field", "environment"}, {"environment", environment.name}, {"reason", reason}});
}

std::string label(std::string_view key, const std::string& value) { return std::string(key) + "=" + value; }

/// `cwd` inside, when it is `host_root` or below it.
std::optional<std::string> inside_path(const std::string& host_root, const std::string& inside_root,
                                       const std::string& cwd) {
  const fs::path rel = fs::path(cwd).lexically_normal().lexically_relative(fs::path(host_root).lexically_normal());
  if (rel.empty() || *rel.begin() == "..") return std::nullopt;
  if (rel == ".") return inside_root;
  return (fs::path(inside_root) / rel).lexically_normal().string();
}

/// `-v source:target` cannot say a path with ':' (or ',' for --mount): refused, not misread.
bool volume_safe(const std::string& path) { return path.find_first_of(":,\n") == std::string::npos; }

std::string volume(const std::string& source, const std::string& target, bool read_only) {
  return source + ":" + target + (read_only ? ":ro" : "");
}

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

std::vector<std::pair<std::string, std::string>> env_pairs(const core::FrozenEnvironment& environment) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : environment.env)
    if (value.is_string()) out.emplace_back(std::string(key), std::string(value.as_string()));
  return out;
}

/// `-e NAME` for each: the engine takes the value from its own environment.
void forward_env(std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env) {
  for (const auto& [key, value] : env) {
    args.emplace_back("-e");
    args.push_back(key);
  }
}

std::vector<std::string> step_argv(const core::ContainerStep& step, const std::string& workdir) {
  if (step.clone_url.empty()) return step.command;
  std::vector<std::string> argv{"git", "clone"};
  if (!step.clone_ref.empty()) argv.insert(argv.end(), {"--branch", step.clone_ref});
  argv.insert(argv.end(), {"--", step.clone_url, step.clone_path.empty() ? workdir : step.clone_path});
  return argv;
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
  if (!environment.container) return refuse(environment, "is not a container environment", "not_supported");
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
    return refuse(environment, failure.error, failure.engine_missing ? "engine_missing" : "engine_failed");
  }
  if (state && state->labels["agentry.owner"] != owner_) {
    // Same name, someone else's: never reuse or remove what this home did not make.
    return refuse(environment,
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
        return refuse(environment, "cannot restart its container '" + name + "': " + started.error, "start_failed");
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
    return refuse(environment,
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
  const std::string inside_root = spec.workspace_container.empty() ? host_root : spec.workspace_container;
  std::string agentry_binary, socket;
  {
    std::lock_guard lock(mutex_);
    agentry_binary = agentry_binary_;
    socket = daemon_socket_;
  }
  for (const auto* path : {&host_root, &inside_root})
    if (!volume_safe(*path))
      return refuse(environment, "the workspace path " + *path + " holds ':' or ',', which a container volume cannot name",
                    "bad_path");

  std::vector<std::string> args{"run",
                                "-d",
                                "--name",
                                name,
                                "--label",
                                label("agentry.owner", owner_),
                                "--label",
                                label("agentry.environment", environment.name),
                                "--label",
                                label("agentry.lifetime", spec.lifetime),
                                "--label",
                                label(spec.lifetime == "group" ? "agentry.group" : "agentry.run",
                                      spec.lifetime == "group" ? request.group_id : request.run_id),
                                "--label",
                                label("agentry.spec", fingerprint(environment)),
                                "--label",
                                label("agentry.cleanup", spec.cleanup),
                                "--label",
                                label("agentry.workspace", host_root),
                                "--network",
                                environment.network.empty() ? "none" : environment.network};
  const auto& security = spec.security;
  if (!security.user.empty()) args.insert(args.end(), {"--user", security.user});
  if (security.read_only_root) args.emplace_back("--read-only");
  if (security.no_new_privileges) args.insert(args.end(), {"--security-opt", "no-new-privileges"});
  for (const auto& cap : security.cap_drop) args.insert(args.end(), {"--cap-drop", cap});
  for (const auto& cap : security.cap_add) args.insert(args.end(), {"--cap-add", cap});

  args.insert(args.end(), {"--volume", volume(host_root, inside_root, false)});
  for (const auto& m : environment.mounts) {
    if (!volume_safe(m.source) || !volume_safe(m.target))
      return refuse(environment, "mount " + m.source + " holds ':' or ',', which a container volume cannot name",
                    "bad_path");
    args.insert(args.end(), {"--volume", volume(m.source, m.target.empty() ? m.source : m.target, m.read_only)});
  }
  for (const auto& m : spec.session_mounts) {
    std::error_code ec;
    fs::create_directories(m.source, ec);
    if (ec)
      return refuse(environment, "cannot create its session mount " + m.source + " on the host: " + ec.message(),
                    "bad_path");
    if (!volume_safe(m.source) || !volume_safe(m.target))
      return refuse(environment, "session mount " + m.source + " holds ':' or ','", "bad_path");
    args.insert(args.end(), {"--volume", volume(m.source, m.target.empty() ? m.source : m.target, m.read_only)});
  }
  if (!agentry_binary.empty() && volume_safe(agentry_binary))
    args.insert(args.end(), {"--volume", volume(agentry_binary, agentry_inside, true)});
  if (!socket.empty()) {
    const std::string dir = fs::path(socket).parent_path().string();
    if (volume_safe(dir)) args.insert(args.end(), {"--volume", volume(dir, socket_dir_inside, false)});
  }
  const auto env = env_pairs(environment);
  forward_env(args, env);
  args.insert(args.end(), {"--workdir", inside_root, "--entrypoint", spec.keep_alive.front()});
  args.insert(args.end(), spec.extra_run_args.begin(), spec.extra_run_args.end());
  args.push_back(spec.image);
  args.insert(args.end(), spec.keep_alive.begin() + 1, spec.keep_alive.end());

  auto created = engine.run(args, env, create_timeout, request.cancelled);
  if (!created.ok) {
    actions.push_back({"environment.failed",
                       {{"container", name}, {"stage", "create"}, {"image", spec.image}, {"error", created.error}}});
    // A failed `run -d` can leave the container created but not started.
    engine.remove(name);
    return refuse(environment, "cannot start a container from image '" + spec.image + "': " + created.error,
                  created.engine_missing ? "engine_missing" : "create_failed");
  }
  actions.push_back({"environment.container_created",
                     {{"container", name},
                      {"engine", spec.engine},
                      {"image", spec.image},
                      {"network", environment.network},
                      {"lifetime", spec.lifetime},
                      {"workspace", host_root}}});
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
  const auto env = env_pairs(environment);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto argv = step_argv(steps[i], workdir);
    std::vector<std::string> args{"exec", "--workdir", workdir};
    forward_env(args, env);
    args.push_back(container);
    args.insert(args.end(), argv.begin(), argv.end());
    auto r = engine.run(args, env, step_timeout, request.cancelled);
    json::object data{{"container", container}, {"phase", phase}, {"step", i}, {"command", strings(argv)},
                      {"exitCode", r.exit_code}};
    if (!r.ok) {
      data["error"] = r.error;
      actions.push_back({"environment.step_failed", std::move(data)});
      return refuse(environment, std::string(phase) + " step " + std::to_string(i + 1) + " failed: " + r.error,
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
    return refuse(environment, why, failure.engine_missing ? "engine_missing" : "container_missing");
  }
  if (!state->running) {
    const std::string why = "the container '" + spec.container + "' is not running (" + state->status +
                            ", exit code " + std::to_string(state->exit_code) + "); agentry does not start containers it "
                            "does not manage";
    actions.push_back({"environment.failed", {{"container", spec.container}, {"stage", "inspect"}, {"error", why}}});
    return refuse(environment, why, "container_stopped");
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
    return refuse(environment,
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

std::vector<ContainerRecord> ContainerManager::list(const std::map<std::string, std::vector<std::string>>& engines,
                                                    std::vector<std::string>& errors) {
  std::vector<ContainerRecord> out;
  for (const auto& [engine_name, engine_args] : engines) {
    const ContainerEngine engine(engine_name, engine_args);
    EngineResult failure;
    auto states = engine.list(label("agentry.owner", owner_), &failure);
    if (!failure.error.empty()) errors.push_back(failure.error);
    for (auto& state : states) {
      ContainerRecord record{engine_name, std::move(state), {}};
      std::lock_guard lock(mutex_);
      if (auto it = users_.find(record.state.name); it != users_.end())
        record.users.assign(it->second.begin(), it->second.end());
      out.push_back(std::move(record));
    }
  }
  return out;
}

std::vector<ContainerRecord> ContainerManager::cleanup(const std::map<std::string, std::vector<std::string>>& engines,
                                                       bool all, const std::set<std::string>& busy,
                                                       std::vector<std::string>& errors) {
  std::vector<ContainerRecord> removed;
  for (auto& record : list(engines, errors)) {
    if (!all && record.state.labels["agentry.cleanup"] != "session-end") continue;
    if (busy.count(record.state.labels["agentry.run"]) || busy.count(record.state.labels["agentry.group"])) continue;
    auto container_lock = lock_for(record.state.name);
    std::lock_guard serial(*container_lock);
    {
      std::lock_guard lock(mutex_);
      if (auto it = users_.find(record.state.name); it != users_.end() && !it->second.empty()) continue;
    }
    auto engine_args = engines.at(record.engine);
    auto r = ContainerEngine(record.engine, engine_args).remove(record.state.name);
    if (r.ok) removed.push_back(std::move(record));
    else errors.push_back("cannot remove container " + record.state.name + ": " + r.error);
  }
  return removed;
}

}  // namespace agentry::environments
