#pragma once
// Finding definition files: by name across the roots (project first), by direct path,
// and every file of a kind for listings. Knows the on-disk layout; reads no file content.

#include "core/result.hpp"
#include "definitions/problem.hpp"
#include "definitions/roots.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::definitions {

enum class Kind { agent, assignment, launcher, task, environment, trigger };

/// "agent", "assignment", "launcher", "task", "environment", "trigger": the `kind` of API payloads.
std::string_view kind_name(Kind kind);
/// For messages: "agent", ..., "task definition".
std::string_view kind_noun(Kind kind);

struct Location {
  std::filesystem::path file;
  /// The name the layout gives the file (agents/<name>/agent.md, tasks/<id>.md...);
  /// nullopt for a direct path outside that layout, where the file's own `name`
  /// field (or its file name) decides.
  std::optional<std::string> name;
};

/// True when `target` is a file path rather than a name: it starts with '/', "./" or
/// "../", or ends in .md, .yaml or .yml.
bool is_path_target(std::string_view target);

/// Whether `path` is `root` or below it, element by element (a trailing separator on
/// either is ignored; nothing is resolved: callers resolve symlinks first).
bool is_within(const std::filesystem::path& path, const std::filesystem::path& root);

/// Agent, assignment, launcher and environment names are one path segment of letters, digits, '.',
/// '_' and '-', not starting with '.'; task ids are such segments joined by '/'.
bool is_valid_name(Kind kind, std::string_view name);

/// Resolves a name or a direct path (relative paths need `cwd`). NOT_FOUND says which
/// directories were searched; INVALID_REQUEST for a malformed name or a relative path
/// without a cwd.
core::Result<Location> locate(const Roots& roots, Kind kind, std::string_view target,
                              const std::optional<std::filesystem::path>& cwd);

/// Every definition of `kind`, one per name (the highest-precedence root wins), sorted
/// by name. Entries that cannot be definitions (a bad name, an agent directory without
/// agent.md) become warnings.
std::vector<Location> enumerate(const Roots& roots, Kind kind, std::vector<Problem>& warnings);

}  // namespace agentry::definitions
