#include "definitions/document.hpp"
#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"

namespace agentry::definitions {
namespace {

std::map<std::string, std::string> read_env(FieldReader& reader) {
  std::map<std::string, std::string> out;
  const YamlNode* node = reader.take("env");
  if (node == nullptr) return out;
  const std::string field = reader.field("env");
  if (!node->is_map()) {
    reader.diag().error(field, "must be a map of variable name to value, not " +
                                   std::string(describe_kind(*node)));
    return out;
  }
  for (const auto& [name, value] : node->entries) {
    // `FOO:` sets FOO to the empty string; a list or map is a mistake.
    if (value.is_null()) {
      out[name] = "";
    } else if (auto text = read_string(value, join_field(field, name), reader.diag())) {
      out[name] = std::move(*text);
    }
  }
  return out;
}

}  // namespace

std::optional<LauncherDefinition> parse_launcher(const Location& location, const Roots& roots,
                                                 Diagnostics& diag) {
  auto document = read_document(location.file, DocumentFormat::yaml, roots.getenv, diag);
  if (!document) return std::nullopt;
  FieldReader reader(document->fields, "", diag);
  check_schema_version(reader);

  LauncherDefinition launcher;
  launcher.name = location.name.value_or(location.file.stem().string());
  launcher.source_path = location.file;
  launcher.description = reader.string("description").value_or("");
  if (const YamlNode* command = reader.take("command")) {
    launcher.command = read_string_list(*command, "command", diag).value_or(std::vector<std::string>{});
    if (command->is_sequence() && command->items.empty()) {
      diag.error("command", "must list at least the program to run, e.g. [nice, -n, \"10\"]");
    }
    for (std::size_t i = 0; i < launcher.command.size(); ++i) {
      if (launcher.command[i].empty()) diag.error(index_field("command", i), "must not be empty");
    }
  } else {
    diag.error("command", "is required: the command prefix, e.g. [nice, -n, \"10\"]");
  }
  launcher.env = read_env(reader);
  reader.warn_unknown_keys();

  if (diag.has_errors()) return std::nullopt;
  return launcher;
}

core::FrozenLauncher to_frozen_launcher(const LauncherDefinition& launcher) {
  core::FrozenLauncher out;
  out.name = launcher.name;
  out.command = launcher.command;
  for (const auto& [name, value] : launcher.env) out.env[name] = value;
  return out;
}

}  // namespace agentry::definitions
