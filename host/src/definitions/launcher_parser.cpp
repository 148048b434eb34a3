#include "definitions/document.hpp"
#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"
#include "definitions/project_trust.hpp"

#include <algorithm>

namespace agentry::definitions {

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

namespace {

bool has_blank(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

/// `command` and `args`: `command: prog` with an optional `args: [arg...]` (the
/// agent-runner form), or `command: [prog, arg...]`; `args` follow the command either
/// way. A string command is one program name, never a shell line: nothing splits,
/// quotes or expands it, so blanks in it are an error that points at the two forms.
std::vector<std::string> read_command(FieldReader& reader) {
  Diagnostics& diag = reader.diag();
  const YamlNode* command = reader.take("command");
  const YamlNode* args = reader.take("args");
  std::vector<std::string> out;
  std::vector<std::string> fields;  // where each item of `out` was written, for errors
  if (command == nullptr) {
    diag.error("command", "is required: the program to run, e.g. 'command: nice' with 'args: [-n, \"10\"]' "
                          "(or the list [nice, -n, \"10\"])");
    return out;
  }
  if (command->is_sequence()) {
    if (command->items.empty()) diag.error("command", "must list at least the program to run, e.g. [nice, -n, \"10\"]");
    out = read_string_list(*command, "command", diag).value_or(std::vector<std::string>{});
    for (std::size_t i = 0; i < out.size(); ++i) fields.push_back(index_field("command", i));
  } else if (command->is_scalar()) {
    const std::string& program = command->text;
    if (has_blank(program)) {
      diag.error("command", "'" + program + "' contains blanks, but a string command is one program name and is "
                            "not run through a shell; put the arguments in 'args' (command: " +
                            program.substr(0, program.find_first_of(" \t\r\n")) +
                            ", args: [...]) or write the whole command as a list (command: [...])");
      return out;
    }
    out.push_back(program);
    fields.emplace_back("command");
  } else {
    diag.error("command", "must be a program name or a list of strings, not " + std::string(describe_kind(*command)));
    return out;
  }
  if (args != nullptr) {
    auto list = read_string_list(*args, "args", diag).value_or(std::vector<std::string>{});
    for (std::size_t i = 0; i < list.size(); ++i) fields.push_back(index_field("args", i));
    out.insert(out.end(), list.begin(), list.end());
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i].empty()) diag.error(fields[i], "must not be empty");
  }
  return out;
}

}  // namespace

std::optional<LauncherDefinition> parse_launcher(const Location& location, const Roots& roots,
                                                 Diagnostics& diag) {
  // A launcher is a program that starts the agent: a project's only once trusted.
  if (refuse_if_untrusted(location.file, roots, diag, "", "is a launcher, a program the daemon would run"))
    return std::nullopt;
  auto document = read_document(location.file, DocumentFormat::yaml, roots.getenv, diag);
  if (!document) return std::nullopt;
  FieldReader reader(document->fields, "", diag);
  check_schema_version(reader);

  const auto name = definition_name(reader, location);

  LauncherDefinition launcher;
  launcher.source_path = location.file;
  launcher.description = reader.string("description").value_or("");
  launcher.command = read_command(reader);
  launcher.env = read_env(reader);
  reader.warn_unknown_keys();

  if (!name || diag.has_errors()) return std::nullopt;
  launcher.name = *name;
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
