#pragma once
// Reading one definition file into its fields and body, with everything that is
// common to every kind: size limit, front matter, YAML, interpolation, schemaVersion.

#include "definitions/env.hpp"
#include "definitions/field_reader.hpp"
#include "definitions/locator.hpp"
#include "definitions/problem.hpp"
#include "definitions/yaml_node.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace agentry::definitions {

/// Definition files are small; anything bigger is a mistake (or not ours to read).
inline constexpr std::size_t max_definition_file_bytes = 1024 * 1024;

enum class DocumentFormat { markdown, yaml };

struct Document {
  YamlNode fields;   // always a map
  std::string body;  // markdown only
};

/// nullopt (with errors in `diag`) when the file cannot be read or is not a YAML map.
std::optional<Document> read_document(const std::filesystem::path& file, DocumentFormat format,
                                      const EnvLookup& env, Diagnostics& diag, const EnvAllow& allow = {});

/// The definition's name: the layout's name when there is one, else the `name` field,
/// else the file name. nullopt, with a warning, when the `name` field disagrees with the
/// layout: the file is skipped rather than silently renamed.
std::optional<std::string> definition_name(FieldReader& reader, const Location& location);

}  // namespace agentry::definitions
