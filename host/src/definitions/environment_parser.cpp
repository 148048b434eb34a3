#include "definitions/document.hpp"
#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"
#include "definitions/project_trust.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace agentry::definitions {
namespace {
namespace fs = std::filesystem;

/// An absolute path without `..`, normalised; an error on `field` otherwise.
std::optional<std::string> read_absolute_path(const YamlNode& node, const std::string& field, Diagnostics& diag) {
  auto text = read_string(node, field, diag);
  if (!text) return std::nullopt;
  const fs::path path(*text);
  if (text->empty() || !path.is_absolute()) {
    diag.error(field, "'" + *text + "' must be an absolute path (use ${HOME}/... for a directory in your home)");
    return std::nullopt;
  }
  if (std::any_of(path.begin(), path.end(), [](const fs::path& p) { return p == ".."; })) {
    diag.error(field, "'" + *text + "' must not contain '..'");
    return std::nullopt;
  }
  std::string normal = path.lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  if (normal == "/") {
    diag.error(field, "must not be '/': binding the whole filesystem would undo the sandbox");
    return std::nullopt;
  }
  return normal;
}

/// `mounts:` (and `sessionMounts:`) a list of { source, target?, readOnly? }: host
/// directories (or files) the sandbox sees, writable unless readOnly, at `target` (default: the same path).
std::vector<EnvironmentMount> read_mounts(FieldReader& reader, std::string_view key) {
  std::vector<EnvironmentMount> out;
  const YamlNode* node = reader.take(key);
  if (node == nullptr) return out;
  Diagnostics& diag = reader.diag();
  const std::string field = reader.field(key);
  if (!node->is_sequence()) {
    diag.error(field, "must be a list of {source, target, readOnly}, not " + std::string(describe_kind(*node)));
    return out;
  }
  for (std::size_t i = 0; i < node->items.size(); ++i) {
    const YamlNode& item = node->items[i];
    const std::string at = index_field(field, i);
    if (!item.is_map()) {
      diag.error(at, "must be a map {source: /abs/path, target: /abs/path, readOnly: false}, not " +
                         std::string(describe_kind(item)));
      continue;
    }
    FieldReader mount(item, at, diag);
    EnvironmentMount m;
    const YamlNode* source = mount.take("source");
    if (source == nullptr) diag.error(join_field(at, "source"), "is required: the host path to bind");
    else if (auto path = read_absolute_path(*source, join_field(at, "source"), diag)) m.source = *path;
    if (const YamlNode* target = mount.take("target"))
      if (auto path = read_absolute_path(*target, join_field(at, "target"), diag)) m.target = *path;
    if (m.target.empty()) m.target = m.source;
    m.read_only = mount.boolean("readOnly").value_or(false);
    mount.refuse_unknown_keys();
    out.push_back(std::move(m));
  }
  return out;
}

void read_bubblewrap(FieldReader& reader, EnvironmentDefinition& environment) {
  Diagnostics& diag = reader.diag();
  if (auto network = reader.string("network")) {
    if (*network == "none" || *network == "host") environment.network = *network;
    else diag.error("network", "'" + *network + "' is not a network mode: use none (the default) or host");
  }
  environment.mounts = read_mounts(reader, "mounts");
  environment.env = read_env(reader);
  environment.extra_args = reader.string_list("extraArgs").value_or(std::vector<std::string>{});
  for (std::size_t i = 0; i < environment.extra_args.size(); ++i)
    if (environment.extra_args[i].empty()) diag.error(index_field("extraArgs", i), "must not be empty");
  if (auto program = reader.string("bwrap")) {
    if (program->empty() || program->find_first_of(" \t\r\n") != std::string::npos)
      diag.error("bwrap", "must be one program name or path (no blanks), e.g. /usr/bin/bwrap");
    else environment.program = *program;
  }
  reader.refuse_unknown_keys();
}

/// One of `allowed`, else an error listing them; `fallback` when absent.
std::string read_choice(FieldReader& reader, std::string_view key, std::initializer_list<std::string_view> allowed,
                        std::string fallback) {
  auto value = reader.string(key);
  if (!value) return fallback;
  for (auto a : allowed)
    if (*value == a) return *value;
  std::string list;
  for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  reader.diag().error(reader.field(key), "'" + *value + "' is not one of: " + list);
  return fallback;
}

/// A list of strings without empty entries.
std::vector<std::string> read_arguments(FieldReader& reader, std::string_view key) {
  auto list = reader.string_list(key).value_or(std::vector<std::string>{});
  for (std::size_t i = 0; i < list.size(); ++i)
    if (list[i].empty()) reader.diag().error(index_field(reader.field(key), i), "must not be empty");
  return list;
}

/// A non-empty string that may hold {{tokens}} (checked once rendered).
std::string template_field(FieldReader& reader, std::string_view key, bool required) {
  if (required) return reader.required_string(key);
  return reader.string(key).value_or("");
}

/// `mode: ro | rw` (required, as agent-runner has it).
bool read_mount_mode(FieldReader& reader) {
  return read_choice(reader, "mode", {"ro", "rw"}, "rw") == "ro";
}

/// agent-runner's mounts: a list of {hostPath, containerPath, mode: ro|rw}.
std::vector<core::Mount> read_container_mounts(FieldReader& reader, std::string_view key) {
  std::vector<core::Mount> out;
  const YamlNode* node = reader.take(key);
  if (node == nullptr) return out;
  Diagnostics& diag = reader.diag();
  const std::string field = reader.field(key);
  if (!node->is_sequence()) {
    diag.error(field, "must be a list of {hostPath, containerPath, mode}");
    return out;
  }
  for (std::size_t i = 0; i < node->items.size(); ++i) {
    const std::string at = index_field(field, i);
    if (!node->items[i].is_map()) {
      diag.error(at, "must be a map {hostPath, containerPath, mode: ro|rw}");
      continue;
    }
    FieldReader mount(node->items[i], at, diag);
    core::Mount m;
    m.source = mount.required_string("hostPath");
    m.target = mount.required_string("containerPath");
    if (mount.take("mode") == nullptr) diag.error(mount.field("mode"), "is required: ro or rw");
    else m.read_only = read_mount_mode(mount);
    mount.refuse_unknown_keys();
    out.push_back(std::move(m));
  }
  return out;
}

/// One lifecycle step: {kind: command, target, command, args, env, cwd, timeoutMs, user,
/// detach} or {kind: git-clone, target, source, baseRef, branch, timeoutMs}.
core::ContainerStep read_step(FieldReader& step) {
  Diagnostics& diag = step.diag();
  core::ContainerStep out;
  out.kind = read_choice(step, "kind", {"command", "git-clone"}, "");
  if (step.take("kind") == nullptr) diag.error(step.field("kind"), "is required: command or git-clone");
  out.target = read_choice(step, "target", {"host", "container"}, "");
  if (step.take("target") == nullptr) diag.error(step.field("target"), "is required: host or container");
  if (auto timeout = step.integer("timeoutMs", 1, 24LL * 3600 * 1000)) out.timeout_ms = static_cast<int>(*timeout);
  if (out.kind == "git-clone") {
    out.source = step.required_string("source");
    out.base_ref = step.required_string("baseRef");
    out.branch = step.required_string("branch");
    for (const auto* v : {&out.base_ref, &out.branch})
      if (!v->empty() && v->front() == '-') diag.error(step.field(v == &out.base_ref ? "baseRef" : "branch"),
                                                       "must not start with '-'");
  } else if (out.kind == "command") {
    const std::string program = step.required_string("command");
    if (!program.empty()) out.command.push_back(program);
    for (auto& a : step.string_list("args").value_or(std::vector<std::string>{})) out.command.push_back(std::move(a));
    for (const auto& [key, value] : read_env(step)) out.env[key] = value;
    out.cwd = step.string("cwd").value_or("");
    out.user = step.string("user").value_or("");
    out.detach = step.boolean("detach").value_or(false);
    if (out.target == "host" && (!out.user.empty() || out.detach))
      diag.error(step.field(out.user.empty() ? "detach" : "user"), "is valid only for target: container");
  }
  step.refuse_unknown_keys();
  return out;
}

/// `lifecycle: {afterStart: [...], onWorkspaceCreate: [...]}`.
void read_lifecycle(FieldReader& reader, core::ContainerSpec& spec) {
  const YamlNode* node = reader.take("lifecycle");
  if (node == nullptr) return;
  Diagnostics& diag = reader.diag();
  if (!node->is_map()) {
    diag.error(reader.field("lifecycle"), "must be a map {afterStart: [steps], onWorkspaceCreate: [steps]}");
    return;
  }
  FieldReader lifecycle(*node, reader.field("lifecycle"), diag);
  for (auto [key, steps] : {std::pair{"afterStart", &spec.after_start},
                            std::pair{"onWorkspaceCreate", &spec.on_workspace_create}}) {
    const YamlNode* list = lifecycle.take(key);
    if (list == nullptr) continue;
    if (!list->is_sequence()) {
      diag.error(lifecycle.field(key), "must be a list of steps");
      continue;
    }
    for (std::size_t i = 0; i < list->items.size(); ++i) {
      const std::string at = index_field(lifecycle.field(key), i);
      if (!list->items[i].is_map()) {
        diag.error(at, "must be a map {kind: command|git-clone, target: host|container, ...}");
        continue;
      }
      FieldReader step(list->items[i], at, diag);
      steps->push_back(read_step(step));
    }
  }
  lifecycle.refuse_unknown_keys();
}

/// `workspace: {scope, hostRoot | hostPath, containerPath, mode, create}`.
void read_workspace(FieldReader& reader, core::ContainerSpec& spec) {
  const YamlNode* node = reader.take("workspace");
  if (node == nullptr) return;
  if (!node->is_map()) {
    reader.diag().error(reader.field("workspace"), "must be a map {scope, hostRoot | hostPath, containerPath, mode, create}");
    return;
  }
  FieldReader workspace(*node, reader.field("workspace"), reader.diag());
  spec.workspace = true;
  spec.workspace_scope = read_choice(workspace, "scope", {"run", "group"}, "run");
  spec.workspace_host_root = workspace.string("hostRoot").value_or("");
  spec.workspace_host = workspace.string("hostPath").value_or("");
  if (!spec.workspace_host_root.empty() && !spec.workspace_host.empty())
    reader.diag().error(workspace.field("hostPath"), "give hostRoot or hostPath, not both");
  if (spec.workspace_host_root.empty() && spec.workspace_host.empty())
    reader.diag().error(workspace.field("hostPath"), "is required (or hostRoot): the workspace on the host");
  spec.workspace_container = workspace.required_string("containerPath");
  spec.workspace_read_only = read_mount_mode(workspace);
  spec.workspace_create = workspace.boolean("create").value_or(true);
  workspace.refuse_unknown_keys();
}

void read_security(FieldReader& reader, core::ContainerSpec& spec) {
  const YamlNode* node = reader.take("security");
  if (node == nullptr) return;
  if (!node->is_map()) {
    reader.diag().error(reader.field("security"), "must be a map {userns, selinuxLabel, readOnlyRootFilesystem, capDrop, "
                                                  "capAdd, user, noNewPrivileges}");
    return;
  }
  FieldReader security(*node, reader.field("security"), reader.diag());
  auto& s = spec.security;
  s.userns = read_choice(security, "userns", {"keep-id", "host"}, "");
  s.selinux_label = read_choice(security, "selinuxLabel", {"disable", "shared", "private"}, "");
  s.read_only_root = security.boolean("readOnlyRootFilesystem").value_or(false);
  s.cap_drop = read_arguments(security, "capDrop");
  s.cap_add = read_arguments(security, "capAdd");
  s.user = security.string("user").value_or("");
  s.no_new_privileges = security.boolean("noNewPrivileges").value_or(true);
  security.refuse_unknown_keys();
}

/// `sessionMounts: backend` or a list of presets.
std::vector<std::string> read_session_mounts(FieldReader& reader) {
  const YamlNode* node = reader.take("sessionMounts");
  if (node == nullptr) return {};
  Diagnostics& diag = reader.diag();
  if (node->is_scalar()) {
    if (node->text == "backend") return {"backend"};
    diag.error(reader.field("sessionMounts"), "'" + node->text + "' is not `backend` or a list of presets");
    return {};
  }
  auto presets = read_string_list(*node, reader.field("sessionMounts"), diag).value_or(std::vector<std::string>{});
  for (std::size_t i = 0; i < presets.size(); ++i)
    if (presets[i] != "claude" && presets[i] != "codex" && presets[i] != "cursor" && presets[i] != "opencode" &&
        presets[i] != "pi")
      diag.error(index_field(reader.field("sessionMounts"), i),
                 "'" + presets[i] + "' is not a preset: claude, codex, cursor, opencode or pi");
  return presets;
}

/// A name the engine takes as one argument: letters, digits and `_.-:/@{}`, not starting
/// with '-' (it would read as an option).
bool engine_name(const std::string& text) {
  if (text.empty() || text.front() == '-') return false;
  return std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '-' || c == ':' || c == '/' || c == '@' || c == '{' ||
           c == '}';
  });
}

void read_container(FieldReader& reader, EnvironmentDefinition& environment) {
  Diagnostics& diag = reader.diag();
  core::ContainerSpec spec;
  if (reader.take("mode") == nullptr) diag.error("mode", "is required: managed or existing");
  spec.mode = read_choice(reader, "mode", {"managed", "existing"}, "managed");
  spec.engine = read_choice(reader, "engine", {"docker", "podman"}, spec.engine);
  spec.engine_args = read_arguments(reader, "engineArgs");
  spec.cwd = template_field(reader, "cwd", false);
  if (spec.cwd.empty()) spec.cwd = "{{cwd}}";
  spec.extra_exec_args = read_arguments(reader, "extraExecArgs");
  environment.env = read_env(reader);
  const bool managed = spec.mode == "managed";
  // Fields of the other mode are errors, not silently unused.
  constexpr const char* not_ours = "does not apply to mode existing: agentry does not create that container";
  auto refuse_for = [&](std::initializer_list<const char*> keys, const char* why) {
    for (const char* key : keys)
      if (reader.take(key) != nullptr) diag.error(reader.field(key), why);
  };
  if (managed) {
    spec.image = reader.required_string("image");
    if (!spec.image.empty() && !engine_name(spec.image))
      diag.error("image", "'" + spec.image + "' is not an image reference");
    spec.container_name = reader.string("containerName").value_or("");
    if (!spec.container_name.empty() && !engine_name(spec.container_name))
      diag.error("containerName", "'" + spec.container_name + "' is not a container name");
    spec.lifetime = read_choice(reader, "lifetime", {"run", "group"}, "run");
    read_workspace(reader, spec);
    read_lifecycle(reader, spec);
    if (!spec.on_workspace_create.empty() && !spec.workspace)
      diag.error("lifecycle.onWorkspaceCreate", "requires a workspace block");
    spec.session_mounts = read_session_mounts(reader);
    environment.mounts.clear();
    for (auto& m : read_container_mounts(reader, "mounts")) environment.mounts.push_back({m.source, m.target, m.read_only});
    // The reference's default is the engine's own network; agentry's is none.
    environment.network = "none";
    if (auto network = reader.string("network")) {
      if (engine_name(*network)) environment.network = *network;
      else diag.error("network", "'" + *network + "' is not a network: default, none, host, bridge or a network name");
    }
    read_security(reader, spec);
    spec.extra_run_args = read_arguments(reader, "extraRunArgs");
    if (const YamlNode* cleanup = reader.take("cleanup")) {
      if (!cleanup->is_map()) {
        diag.error("cleanup", "must be a map {policy: terminal|manual}");
      } else {
        FieldReader policy(*cleanup, reader.field("cleanup"), diag);
        spec.cleanup = read_choice(policy, "policy", {"terminal", "manual"}, "terminal");
        policy.refuse_unknown_keys();
      }
    }
    if (reader.take("keepAlive") != nullptr) {
      auto keep = read_arguments(reader, "keepAlive");
      if (keep.empty()) diag.error("keepAlive", "must name a program, e.g. [sleep, infinity]");
      else spec.keep_alive = std::move(keep);
    }
    refuse_for({"container", "expectedMounts"}, "is for mode existing: a managed container is named by agentry "
                                                "(containerName) and gets mounts");
  } else {
    spec.container = reader.required_string("container");
    if (!spec.container.empty() && !engine_name(spec.container))
      diag.error("container", "'" + spec.container + "' is not a container name or id");
    spec.expected_mounts = read_container_mounts(reader, "expectedMounts");
    environment.network = "";
    refuse_for({"image", "containerName", "lifetime", "workspace", "lifecycle", "sessionMounts", "mounts", "network",
                "security", "extraRunArgs", "cleanup", "keepAlive"},
               not_ours);
  }
  environment.container = std::move(spec);
  reader.refuse_unknown_keys();
}

}  // namespace

std::optional<EnvironmentDefinition> parse_environment(const Location& location, const Roots& roots,
                                                       Diagnostics& diag) {
  // An environment runs a program on the host (bwrap, a container engine) around the
  // agent: a project's only once trusted.
  if (refuse_if_untrusted(location.file, roots, diag, "",
                          "is an execution environment, which runs a program on the host (bwrap, a container engine)"))
    return std::nullopt;
  auto document = read_document(location.file, DocumentFormat::yaml, roots.getenv, diag);
  if (!document) return std::nullopt;
  FieldReader reader(document->fields, "", diag);
  check_schema_version(reader);
  const auto name = definition_name(reader, location);

  EnvironmentDefinition environment;
  environment.source_path = location.file;
  environment.description = reader.string("description").value_or("");
  environment.kind = reader.required_string("kind");
  if (environment.kind == "bubblewrap") {
    read_bubblewrap(reader, environment);
  } else if (environment.kind == "container") {
    read_container(reader, environment);
  } else if (!environment.kind.empty()) {
    diag.error("kind", "'" + environment.kind + "' is not an environment kind: use bubblewrap or container");
  }

  if (!name || diag.has_errors()) return std::nullopt;
  environment.name = *name;
  return environment;
}

core::FrozenEnvironment to_frozen_environment(const EnvironmentDefinition& environment) {
  core::FrozenEnvironment out;
  out.name = environment.name;
  out.source_path = environment.source_path.string();
  out.kind = environment.kind;
  out.network = environment.network;
  out.program = environment.kind == "bubblewrap" ? environment.program : "";
  for (const auto& m : environment.mounts) out.mounts.push_back({m.source, m.target, m.read_only});
  for (const auto& [name, value] : environment.env) out.env[name] = value;
  out.extra_args = environment.extra_args;
  out.container = environment.container;
  return out;
}

}  // namespace agentry::definitions
