#include "environments/container_command.hpp"

#include "environments/container_manager.hpp"

#include <filesystem>

namespace agentry::environments {
namespace fs = std::filesystem;
namespace {

std::string label(std::string_view key, const std::string& value) { return std::string(key) + "=" + value; }

/// `-v source:target` cannot say a path with ':' (or ',' for --mount): refused, not misread.
bool volume_safe(const std::string& path) { return path.find_first_of(":,\n") == std::string::npos; }

std::string volume(const std::string& source, const std::string& target, bool read_only) {
  return source + ":" + target + (read_only ? ":ro" : "");
}

void forward_env(std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env) {
  for (const auto& [key, value] : env) args.insert(args.end(), {"-e", key});
}

}  // namespace

core::Failure environment_refusal(const core::FrozenEnvironment& environment, const std::string& why,
                                  std::string_view reason) {
  return core::fail(core::ErrorCode::validation, "environment '" + environment.name + "': " + why,
                    {{"field", "environment"}, {"environment", environment.name}, {"reason", reason}});
}

std::vector<std::pair<std::string, std::string>> environment_values(const core::FrozenEnvironment& environment) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : environment.env)
    if (value.is_string()) out.emplace_back(std::string(key), std::string(value.as_string()));
  return out;
}

std::optional<std::string> inside_path(const std::string& host_root, const std::string& inside_root,
                                       const std::string& cwd) {
  const fs::path rel = fs::path(cwd).lexically_normal().lexically_relative(fs::path(host_root).lexically_normal());
  if (rel.empty() || *rel.begin() == "..") return std::nullopt;
  if (rel == ".") return inside_root;
  return (fs::path(inside_root) / rel).lexically_normal().string();
}

core::Result<std::vector<std::string>> container_run_args(const core::FrozenEnvironment& environment,
                                                          const ContainerRunInputs& in) {
  const auto& spec = *environment.container;
  const std::string inside_root = spec.workspace_container.empty() ? in.host_root : spec.workspace_container;
  std::vector<std::string> args{"run", "-d", "--name", in.name};
  for (const auto& [key, value] : std::initializer_list<std::pair<const char*, std::string>>{
           {"agentry.owner", in.owner},
           {"agentry.environment", environment.name},
           {"agentry.lifetime", spec.lifetime},
           {spec.lifetime == "group" ? "agentry.group" : "agentry.run",
            spec.lifetime == "group" ? in.group_id : in.run_id},
           {"agentry.spec", in.fingerprint},
           {"agentry.cleanup", spec.cleanup},
           {"agentry.workspace", in.host_root}})
    args.insert(args.end(), {"--label", label(key, value)});
  args.insert(args.end(), {"--network", environment.network.empty() ? "none" : environment.network});

  const auto& security = spec.security;
  if (!security.user.empty()) args.insert(args.end(), {"--user", security.user});
  if (security.read_only_root) args.emplace_back("--read-only");
  if (security.no_new_privileges) args.insert(args.end(), {"--security-opt", "no-new-privileges"});
  for (const auto& cap : security.cap_drop) args.insert(args.end(), {"--cap-drop", cap});
  for (const auto& cap : security.cap_add) args.insert(args.end(), {"--cap-add", cap});

  auto add_volume = [&](const std::string& source, const std::string& target, bool read_only,
                        const char* what) -> core::Result<void> {
    if (!volume_safe(source) || !volume_safe(target))
      return environment_refusal(environment,
                                 std::string(what) + " " + source + " holds ':' or ',', which a container volume "
                                                                    "cannot name",
                                 "bad_path");
    args.insert(args.end(), {"--volume", volume(source, target, read_only)});
    return core::ok();
  };
  if (auto ok = add_volume(in.host_root, inside_root, false, "the workspace"); !ok) return ok.failure();
  for (const auto& m : environment.mounts)
    if (auto ok = add_volume(m.source, m.target.empty() ? m.source : m.target, m.read_only, "mount"); !ok)
      return ok.failure();
  for (const auto& m : spec.session_mounts)
    if (auto ok = add_volume(m.source, m.target.empty() ? m.source : m.target, m.read_only, "session mount"); !ok)
      return ok.failure();
  if (!in.agentry_binary.empty() && volume_safe(in.agentry_binary))
    args.insert(args.end(), {"--volume", volume(in.agentry_binary, agentry_inside, true)});
  if (!in.daemon_socket.empty())
    if (const std::string dir = fs::path(in.daemon_socket).parent_path().string(); volume_safe(dir))
      args.insert(args.end(), {"--volume", volume(dir, socket_dir_inside, false)});

  forward_env(args, environment_values(environment));
  args.insert(args.end(), {"--workdir", inside_root, "--entrypoint", spec.keep_alive.front()});
  args.insert(args.end(), spec.extra_run_args.begin(), spec.extra_run_args.end());
  args.push_back(spec.image);
  args.insert(args.end(), spec.keep_alive.begin() + 1, spec.keep_alive.end());
  return args;
}

std::vector<std::string> step_command(const core::ContainerStep& step, const std::string& workdir) {
  if (step.clone_url.empty()) return step.command;
  std::vector<std::string> argv{"git", "clone"};
  if (!step.clone_ref.empty()) argv.insert(argv.end(), {"--branch", step.clone_ref});
  argv.insert(argv.end(), {"--", step.clone_url, step.clone_path.empty() ? workdir : step.clone_path});
  return argv;
}

std::vector<std::string> container_step_args(const core::FrozenEnvironment& environment, const std::string& container,
                                             const std::string& workdir, const core::ContainerStep& step) {
  std::vector<std::string> args{"exec", "--workdir", workdir};
  forward_env(args, environment_values(environment));
  args.push_back(container);
  const auto command = step_command(step, workdir);
  args.insert(args.end(), command.begin(), command.end());
  return args;
}

}  // namespace agentry::environments
