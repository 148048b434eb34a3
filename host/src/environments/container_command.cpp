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

std::optional<std::string> render_tokens(const std::string& text, const std::map<std::string, std::string>& tokens,
                                         std::string* unknown) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto open = text.find("{{", at);
    if (open == std::string::npos) {
      out += text.substr(at);
      break;
    }
    const auto close = text.find("}}", open + 2);
    if (close == std::string::npos) {
      if (unknown) *unknown = text.substr(open);
      return std::nullopt;
    }
    std::string name = text.substr(open + 2, close - open - 2);
    while (!name.empty() && name.front() == ' ') name.erase(0, 1);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    const auto found = tokens.find(name);
    if (found == tokens.end()) {
      if (unknown) *unknown = name;
      return std::nullopt;
    }
    out += text.substr(at, open - at) + found->second;
    at = close + 2;
  }
  return out;
}

std::vector<core::Mount> session_mount_paths(const std::vector<std::string>& presets, const std::string& backend,
                                             const std::string& home, const std::string& codex_home) {
  std::vector<core::Mount> out;
  auto add = [&](const std::string& path, bool directory) {
    std::error_code ec;
    if (directory) fs::create_directories(path, ec);
    if (fs::exists(path, ec)) out.push_back({path, path, false});
  };
  for (std::string preset : presets) {
    if (preset == "backend") preset = backend;  // claude, codex, cursor, pi (others keep none)
    if (preset == "claude") {
      add(home + "/.claude", true);
      add(home + "/.claude.json", false);
    } else if (preset == "codex") {
      add(codex_home.empty() ? home + "/.codex" : codex_home, true);
    } else if (preset == "cursor") {
      add(home + "/.cursor", true);
    } else if (preset == "opencode") {
      add(home + "/.local/share/opencode", true);
    } else if (preset == "pi") {
      add(home + "/.pi", true);
    }
  }
  return out;
}

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
  std::vector<std::string> args{"run", "-d", "--name", in.name};
  for (const auto& [key, value] : std::initializer_list<std::pair<const char*, std::string>>{
           {"agentry.owner", in.owner},
           {"agentry.environment", environment.name},
           {"agentry.lifetime", spec.lifetime},
           {spec.lifetime == "group" ? "agentry.group" : "agentry.run",
            spec.lifetime == "group" ? in.group_id : in.run_id},
           {"agentry.spec", in.fingerprint},
           {"agentry.cleanup", spec.cleanup},
           {"agentry.workspace", in.host_root},
           {"agentry.inside", in.inside_root}})
    args.insert(args.end(), {"--label", label(key, value)});
  // `default`: the engine's own network (no option).
  if (environment.network != "default")
    args.insert(args.end(), {"--network", environment.network.empty() ? "none" : environment.network});

  const auto& security = spec.security;
  if (!security.userns.empty()) args.insert(args.end(), {"--userns", security.userns});
  if (security.selinux_label == "disable") args.insert(args.end(), {"--security-opt", "label=disable"});
  if (!security.user.empty()) args.insert(args.end(), {"--user", security.user});
  if (security.read_only_root) args.emplace_back("--read-only");
  if (security.no_new_privileges) args.insert(args.end(), {"--security-opt", "no-new-privileges"});
  for (const auto& cap : security.cap_drop) args.insert(args.end(), {"--cap-drop", cap});
  for (const auto& cap : security.cap_add) args.insert(args.end(), {"--cap-add", cap});

  // SELinux relabelling of the binds: `z` shared between containers, `Z` this one's.
  const std::string relabel = security.selinux_label == "shared"    ? "z"
                              : security.selinux_label == "private" ? "Z"
                                                                    : "";
  auto add_volume = [&](const std::string& source, const std::string& target, bool read_only,
                        const char* what) -> core::Result<void> {
    if (!volume_safe(source) || !volume_safe(target))
      return environment_refusal(environment,
                                 std::string(what) + " " + source + " holds ':' or ',', which a container volume "
                                                                    "cannot name",
                                 "bad_path");
    std::string options = read_only ? "ro" : "";
    if (!relabel.empty()) options += (options.empty() ? "" : ",") + relabel;
    args.insert(args.end(), {"--volume", source + ":" + target + (options.empty() ? "" : ":" + options)});
    return core::ok();
  };
  if (auto ok = add_volume(in.host_root, in.inside_root, spec.workspace_read_only, "the workspace"); !ok)
    return ok.failure();
  for (const auto& m : in.mounts)
    if (auto ok = add_volume(m.source, m.target.empty() ? m.source : m.target, m.read_only, "mount"); !ok)
      return ok.failure();
  if (!in.agentry_binary.empty() && volume_safe(in.agentry_binary))
    args.insert(args.end(), {"--volume", volume(in.agentry_binary, agentry_inside, true)});
  if (!in.daemon_socket.empty())
    if (const std::string dir = fs::path(in.daemon_socket).parent_path().string(); volume_safe(dir))
      args.insert(args.end(), {"--volume", volume(dir, socket_dir_inside, false)});

  forward_env(args, environment_values(environment));
  args.insert(args.end(), {"--workdir", in.inside_root, "--entrypoint", spec.keep_alive.front()});
  args.insert(args.end(), spec.extra_run_args.begin(), spec.extra_run_args.end());
  args.push_back(spec.image);
  args.insert(args.end(), spec.keep_alive.begin() + 1, spec.keep_alive.end());
  return args;
}

std::vector<std::vector<std::string>> step_commands(const core::ContainerStep& step, const std::string& workdir) {
  if (step.kind != "git-clone") return {step.command};
  return {{"git", "clone", "--", step.source, workdir},
          {"git", "-C", workdir, "checkout", "-b", step.branch, step.base_ref}};
}

std::vector<std::string> container_exec_args(const core::FrozenEnvironment& environment, const std::string& container,
                                             const std::string& workdir, const core::ContainerStep& step,
                                             const std::vector<std::string>& command) {
  std::vector<std::string> args{"exec"};
  if (step.detach) args.emplace_back("-d");
  if (!step.user.empty()) args.insert(args.end(), {"--user", step.user});
  args.insert(args.end(), {"--workdir", workdir});
  forward_env(args, environment_values(environment));
  for (const auto& [key, value] : step.env) args.insert(args.end(), {"-e", std::string(key)});
  args.push_back(container);
  args.insert(args.end(), command.begin(), command.end());
  return args;
}

}  // namespace agentry::environments
