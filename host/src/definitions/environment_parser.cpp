#include "definitions/document.hpp"
#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"
#include "definitions/project_trust.hpp"

#include <algorithm>
#include <array>

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

/// `mounts:` a list of { source, target?, readOnly? }: host directories (or files) the
/// sandbox sees, writable unless readOnly, at `target` (default: the same path).
std::vector<EnvironmentMount> read_mounts(FieldReader& reader) {
  std::vector<EnvironmentMount> out;
  const YamlNode* node = reader.take("mounts");
  if (node == nullptr) return out;
  Diagnostics& diag = reader.diag();
  const std::string field = reader.field("mounts");
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
  environment.mounts = read_mounts(reader);
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

void read_container(FieldReader& reader, EnvironmentDefinition& environment) {
  constexpr std::array fields{"mode",      "engine",       "image",         "lifetime", "workspace",
                              "afterStart", "onWorkspaceCreate", "sessionMounts", "mounts",   "network",
                              "security",  "extraRunArgs", "extraExecArgs", "cleanup"};
  for (const char* key : fields)
    if (auto value = reader.json(key)) environment.container[key] = std::move(*value);
  environment.env = read_env(reader);
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
  out.network = environment.kind == "bubblewrap" ? environment.network : "";
  if (environment.kind == "container")
    if (const auto* n = environment.container.if_contains("network"); n && n->is_string())
      out.network = std::string(n->as_string());
  out.program = environment.kind == "bubblewrap" ? environment.program : "";
  for (const auto& m : environment.mounts) out.mounts.push_back({m.source, m.target, m.read_only});
  for (const auto& [name, value] : environment.env) out.env[name] = value;
  out.extra_args = environment.extra_args;
  return out;
}

}  // namespace agentry::definitions
