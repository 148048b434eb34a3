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

/// `afterStart:` / `onWorkspaceCreate:`: a list of `{command: "..." | [...]}` and
/// `{git-clone: {url, ref, path}}` steps, run inside the container.
std::vector<core::ContainerStep> read_steps(FieldReader& reader, std::string_view key) {
  std::vector<core::ContainerStep> out;
  const YamlNode* node = reader.take(key);
  if (node == nullptr) return out;
  Diagnostics& diag = reader.diag();
  const std::string field = reader.field(key);
  if (!node->is_sequence()) {
    diag.error(field, "must be a list of steps ({command: ...} or {git-clone: {url, ref, path}})");
    return out;
  }
  for (std::size_t i = 0; i < node->items.size(); ++i) {
    const std::string at = index_field(field, i);
    if (!node->items[i].is_map()) {
      diag.error(at, "must be a map: {command: ...} or {git-clone: {url, ref, path}}");
      continue;
    }
    FieldReader item(node->items[i], at, diag);
    core::ContainerStep step;
    const YamlNode* command = item.take("command");
    const YamlNode* clone = item.take("git-clone");
    if ((command == nullptr) == (clone == nullptr)) {
      diag.error(at, "needs exactly one of command or git-clone");
    } else if (command != nullptr) {
      if (command->is_scalar()) {
        if (command->text.empty()) diag.error(item.field("command"), "must not be empty");
        else step.command = {"sh", "-c", command->text};
      } else if (auto argv = read_string_list(*command, item.field("command"), diag)) {
        if (argv->empty() || argv->front().empty()) diag.error(item.field("command"), "must name a program");
        else step.command = std::move(*argv);
      }
    } else if (!clone->is_map()) {
      diag.error(item.field("git-clone"), "must be a map {url, ref, path}");
    } else {
      FieldReader git(*clone, item.field("git-clone"), diag);
      step.clone_url = git.required_string("url");
      if (!step.clone_url.empty() && step.clone_url.front() == '-')
        diag.error(git.field("url"), "must not start with '-'");
      step.clone_ref = git.string("ref").value_or("");
      if (!step.clone_ref.empty() && step.clone_ref.front() == '-')
        diag.error(git.field("ref"), "must not start with '-'");
      if (const YamlNode* path = git.take("path"))
        if (auto p = read_absolute_path(*path, git.field("path"), diag)) step.clone_path = *p;
      git.refuse_unknown_keys();
    }
    item.refuse_unknown_keys();
    out.push_back(std::move(step));
  }
  return out;
}

void read_workspace(FieldReader& reader, core::ContainerSpec& spec) {
  const YamlNode* node = reader.take("workspace");
  if (node == nullptr) return;
  if (!node->is_map()) {
    reader.diag().error(reader.field("workspace"), "must be a map {hostPath, containerPath}");
    return;
  }
  FieldReader workspace(*node, reader.field("workspace"), reader.diag());
  if (const YamlNode* host = workspace.take("hostPath"))
    if (auto p = read_absolute_path(*host, workspace.field("hostPath"), reader.diag())) spec.workspace_host = *p;
  if (const YamlNode* inside = workspace.take("containerPath"))
    if (auto p = read_absolute_path(*inside, workspace.field("containerPath"), reader.diag()))
      spec.workspace_container = *p;
  workspace.refuse_unknown_keys();
}

void read_security(FieldReader& reader, core::ContainerSpec& spec) {
  const YamlNode* node = reader.take("security");
  if (node == nullptr) return;
  if (!node->is_map()) {
    reader.diag().error(reader.field("security"),
                        "must be a map {user, readOnlyRootFilesystem, noNewPrivileges, capDrop, capAdd}");
    return;
  }
  FieldReader security(*node, reader.field("security"), reader.diag());
  auto& s = spec.security;
  s.user = security.string("user").value_or("");
  s.read_only_root = security.boolean("readOnlyRootFilesystem").value_or(false);
  s.no_new_privileges = security.boolean("noNewPrivileges").value_or(true);
  if (security.take("capDrop") != nullptr) s.cap_drop = read_arguments(security, "capDrop");
  s.cap_add = read_arguments(security, "capAdd");
  security.refuse_unknown_keys();
}

/// A name the engine takes as one argument: letters, digits and `_.-:/@`, not starting
/// with '-' (it would read as an option).
bool engine_name(const std::string& text) {
  if (text.empty() || text.front() == '-') return false;
  return std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '-' || c == ':' || c == '/' || c == '@';
  });
}

void read_container(FieldReader& reader, EnvironmentDefinition& environment) {
  Diagnostics& diag = reader.diag();
  core::ContainerSpec spec;
  spec.mode = read_choice(reader, "mode", {"managed", "existing"}, spec.mode);
  spec.engine = read_choice(reader, "engine", {"podman", "docker"}, spec.engine);
  spec.engine_args = read_arguments(reader, "engineArgs");
  const bool managed = spec.mode == "managed";
  // Fields that only mean something for the other mode are errors, not silently unused.
  auto only = [&](std::string_view key, bool allowed, const char* why) {
    if (!allowed && reader.take(key) != nullptr) diag.error(reader.field(key), why);
    return allowed;
  };
  constexpr const char* not_ours = "does not apply to mode existing: agentry does not create that container";
  if (managed) {
    spec.image = reader.required_string("image");
    if (!spec.image.empty() && !engine_name(spec.image))
      diag.error("image", "'" + spec.image + "' is not an image reference");
  } else {
    only("image", false, not_ours);
    spec.container = reader.required_string("container");
    if (!spec.container.empty() && !engine_name(spec.container))
      diag.error("container", "'" + spec.container + "' is not a container name or id");
  }
  if (managed) only("container", false, "mode managed: agentry names the containers it creates");
  if (only("lifetime", managed, not_ours)) spec.lifetime = read_choice(reader, "lifetime", {"run", "group"}, "run");
  read_workspace(reader, spec);
  if (only("afterStart", managed, "does not apply to mode existing: agentry does not start that container"))
    spec.after_start = read_steps(reader, "afterStart");
  spec.on_workspace_create = read_steps(reader, "onWorkspaceCreate");
  if (only("sessionMounts", managed, not_ours)) {
    for (auto& m : read_mounts(reader, "sessionMounts")) spec.session_mounts.push_back({m.source, m.target, m.read_only});
  }
  if (only("mounts", managed, not_ours)) environment.mounts = read_mounts(reader, "mounts");
  environment.network = managed ? "none" : "";
  if (only("network", managed, not_ours))
    if (auto network = reader.string("network")) {
      if (engine_name(*network)) environment.network = *network;
      else diag.error("network", "'" + *network + "' is not a network: use none (the default), host or a network name");
    }
  if (only("security", managed, not_ours)) read_security(reader, spec);
  if (only("extraRunArgs", managed, not_ours)) spec.extra_run_args = read_arguments(reader, "extraRunArgs");
  spec.extra_exec_args = read_arguments(reader, "extraExecArgs");
  if (only("cleanup", managed, "does not apply to mode existing: agentry never removes a container it did not create"))
    spec.cleanup = read_choice(reader, "cleanup", {"session-end", "run-delete", "never"}, spec.cleanup);
  if (only("keepAlive", managed, not_ours))
    if (reader.take("keepAlive") != nullptr) {
      auto keep = read_arguments(reader, "keepAlive");
      if (keep.empty()) diag.error("keepAlive", "must name a program, e.g. [sleep, infinity]");
      else spec.keep_alive = std::move(keep);
    }
  environment.env = read_env(reader);
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
