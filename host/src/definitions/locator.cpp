#include "definitions/locator.hpp"

#include <algorithm>
#include <map>
#include <system_error>

namespace fs = std::filesystem;

namespace agentry::definitions {
namespace {

std::string_view kind_dir(Kind kind) {
  switch (kind) {
    case Kind::agent: return "agents";
    case Kind::assignment: return "assignments";
    case Kind::launcher: return "launchers";
    case Kind::task: return "tasks";
    case Kind::environment: return "environments";
    case Kind::trigger: return "triggers";
  }
  return "";
}

/// The file that holds `name` below a kind directory.
fs::path relative_file(Kind kind, std::string_view name) {
  switch (kind) {
    case Kind::agent: return fs::path(name) / "agent.md";
    case Kind::assignment: return fs::path(name) / "assignment.md";
    case Kind::launcher:
    case Kind::environment:
    case Kind::trigger: return fs::path(std::string(name) + ".yaml");
    case Kind::task: return fs::path(std::string(name) + ".md");
  }
  return {};
}

/// Kinds whose definition is one <name>.yaml (or .yml) file.
bool is_yaml_kind(Kind kind) { return kind == Kind::launcher || kind == Kind::environment || kind == Kind::trigger; }

bool is_valid_segment(std::string_view segment) {
  if (segment.empty() || segment.front() == '.') return false;
  return std::all_of(segment.begin(), segment.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

/// The name a direct path has by the layout, if it follows it.
std::optional<std::string> name_from_path(Kind kind, const fs::path& file) {
  switch (kind) {
    case Kind::agent:
    case Kind::assignment: {
      const char* expected = kind == Kind::agent ? "agent.md" : "assignment.md";
      if (file.filename() == expected && file.has_parent_path()) {
        return file.parent_path().filename().string();
      }
      return std::nullopt;
    }
    case Kind::launcher:
    case Kind::environment:
    case Kind::trigger: return file.stem().string();
    case Kind::task: {
      // The id is the path below the nearest enclosing "tasks" directory.
      fs::path id;
      for (fs::path dir = file.parent_path(); !dir.empty() && dir != dir.parent_path();
           dir = dir.parent_path()) {
        if (dir.filename() == "tasks") {
          id = file.lexically_relative(dir);
          break;
        }
      }
      if (id.empty()) return file.stem().string();
      id.replace_extension();
      return id.generic_string();
    }
  }
  return std::nullopt;
}

std::string searched_dirs(const Roots& roots, Kind kind) {
  std::string out;
  for (const auto& root : search_roots(roots)) {
    out += (out.empty() ? "" : ", ") + (root / kind_dir(kind)).string();
  }
  return out;
}

/// `path` with a trailing separator dropped, so that it compares element by element.
fs::path without_trailing_slash(fs::path path) {
  path = path.lexically_normal();
  if (!path.has_filename() && path.has_parent_path() && path != path.root_path()) path = path.parent_path();
  return path;
}

/// A request may name a definition file by path, but only one inside the definition
/// roots: the daemon reads whatever file it is told, and its answer (parsed, missing,
/// malformed) would otherwise tell a caller about any file on the machine. Checked on
/// the lexical path and again after resolving symlinks.
core::Result<void> check_confined(const Roots& roots, const fs::path& file, std::string_view target) {
  const auto allowed = search_roots(roots);
  auto inside_any = [&](auto resolve) {
    std::error_code ec;
    const fs::path resolved = resolve(file, ec);
    if (ec) return false;
    return std::any_of(allowed.begin(), allowed.end(), [&](const fs::path& root) {
      std::error_code root_ec;
      const fs::path base = resolve(root, root_ec);
      return !root_ec && is_within(resolved, base);
    });
  };
  auto lexical = [](const fs::path& p, std::error_code&) { return p.lexically_normal(); };
  auto physical = [](const fs::path& p, std::error_code& ec) { return fs::weakly_canonical(p, ec); };
  if (inside_any(lexical) && inside_any(physical)) return core::ok();
  std::string where;
  for (const auto& root : allowed) where += (where.empty() ? "" : " or ") + root.string();
  return core::fail(core::ErrorCode::forbidden,
                    "definition path '" + std::string(target) + "' is outside the definition directories (" +
                        (where.empty() ? std::string("none configured") : where) +
                        "); move the file there or name the definition instead",
                    {{"target", target}});
}

core::Result<Location> locate_path(const Roots& roots, Kind kind, std::string_view target,
                                   const std::optional<fs::path>& cwd) {
  fs::path file(target);
  if (file.is_relative()) {
    if (!cwd) {
      return core::fail(core::ErrorCode::invalid_request,
                        "relative path '" + std::string(target) +
                            "' needs a cwd to resolve against; pass one or use an absolute path",
                        {{"target", target}});
    }
    file = *cwd / file;
  }
  file = file.lexically_normal();
  if (auto confined = check_confined(roots, file, target); !confined) return confined.failure();
  std::error_code ec;
  if (fs::is_directory(file, ec) && (kind == Kind::agent || kind == Kind::assignment)) {
    file /= kind == Kind::agent ? "agent.md" : "assignment.md";
  }
  if (!is_file(file)) {
    return core::fail(core::ErrorCode::not_found,
                      "no " + std::string(kind_noun(kind)) + " file at " + file.string(),
                      {{"kind", kind_name(kind)}, {"path", file.string()}});
  }
  return Location{file, name_from_path(kind, file)};
}

}  // namespace

std::vector<fs::path> search_roots(const Roots& roots) {
  std::vector<fs::path> out;
  if (roots.project_dir && roots.project_trusted) out.push_back(*roots.project_dir / ".agentry");
  if (!roots.config_dir.empty()) out.push_back(roots.config_dir);
  if (roots.project_dir && !roots.project_trusted) out.push_back(*roots.project_dir / ".agentry");
  return out;
}

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::agent: return "agent";
    case Kind::assignment: return "assignment";
    case Kind::launcher: return "launcher";
    case Kind::task: return "task";
    case Kind::environment: return "environment";
    case Kind::trigger: return "trigger";
  }
  return "";
}

std::string_view kind_noun(Kind kind) { return kind == Kind::task ? "task definition" : kind_name(kind); }

bool is_path_target(std::string_view target) {
  return target.substr(0, 1) == "/" || target.substr(0, 2) == "./" || target.substr(0, 3) == "../" ||
         target == "." || target == ".." || ends_with(target, ".md") || ends_with(target, ".yaml") ||
         ends_with(target, ".yml");
}

bool is_valid_name(Kind kind, std::string_view name) {
  if (kind != Kind::task) return is_valid_segment(name);
  if (name.empty()) return false;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = name.find('/', start);
    if (!is_valid_segment(name.substr(start, slash - start))) return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

core::Result<Location> locate(const Roots& roots, Kind kind, std::string_view target,
                              const std::optional<fs::path>& cwd) {
  if (is_path_target(target)) return locate_path(roots, kind, target, cwd);
  if (!is_valid_name(kind, target)) {
    return core::fail(core::ErrorCode::invalid_request,
                      "'" + std::string(target) + "' is not a valid " + std::string(kind_noun(kind)) +
                          " name: use letters, digits, '.', '_' and '-'" +
                          (kind == Kind::task ? " (and '/' between parts)" : ""),
                      {{"kind", kind_name(kind)}, {"target", target}});
  }
  for (const auto& root : search_roots(roots)) {
    const fs::path file = root / kind_dir(kind) / relative_file(kind, target);
    if (is_file(file)) return Location{file, std::string(target)};
    if (is_yaml_kind(kind)) {
      // launchers/<name>.yml, as agent-runner also reads; <name>.yaml wins when both exist.
      fs::path yml = file;
      yml.replace_extension(".yml");
      if (is_file(yml)) return Location{yml, std::string(target)};
    }
  }
  return core::fail(core::ErrorCode::not_found,
                    "no " + std::string(kind_noun(kind)) + " named '" + std::string(target) + "' in " +
                        searched_dirs(roots, kind),
                    {{"kind", kind_name(kind)}, {"name", target}});
}

std::vector<Location> enumerate(const Roots& roots, Kind kind, std::vector<Problem>& warnings) {
  std::map<std::string, Location> found;  // sorted by name; the first root to claim a name wins
  const std::optional<fs::path> untrusted_project =
      roots.project_dir && !roots.project_trusted ? std::optional(*roots.project_dir / ".agentry") : std::nullopt;
  fs::path current_root;
  auto consider = [&](const std::string& name, const fs::path& file) {
    if (!is_valid_name(kind, name)) {
      warnings.push_back(Problem{file.string(), "",
                                 "'" + name + "' is not a valid " + std::string(kind_noun(kind)) +
                                     " name (letters, digits, '.', '_', '-'); the file is skipped"});
      return;
    }
    auto [at, added] = found.try_emplace(name, Location{file, name});
    if (!added && untrusted_project && current_root == *untrusted_project) {
      warnings.push_back(Problem{file.string(), "",
                                 "is shadowed by " + at->second.file.string() + ": the config directory's " +
                                     std::string(kind_noun(kind)) + " '" + name +
                                     "' wins while the project is not trusted (run `agentry trust " +
                                     roots.project_dir->string() + "` to use the project's)"});
    }
  };

  for (const auto& root : search_roots(roots)) {
    current_root = root;
    const fs::path dir = root / kind_dir(kind);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    if (kind == Kind::task) {
      for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        if (it->path().extension() != ".md" || !is_file(it->path())) continue;
        fs::path id = it->path().lexically_relative(dir);
        id.replace_extension();
        consider(id.generic_string(), it->path());
      }
    } else {
      for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const fs::path& entry = it->path();
        if (is_yaml_kind(kind)) {
          if (entry.extension() == ".yaml" && is_file(entry)) consider(entry.stem().string(), entry);
          if (entry.extension() == ".yml" && is_file(entry)) {
            fs::path yaml = entry;
            yaml.replace_extension(".yaml");
            if (is_file(yaml)) {
              warnings.push_back(Problem{entry.string(), "",
                                         "is ignored: " + yaml.filename().string() + " defines the same " +
                                             std::string(kind_noun(kind))});
            } else {
              consider(entry.stem().string(), entry);
            }
          }
          continue;
        }
        std::error_code entry_ec;
        if (!fs::is_directory(entry, entry_ec)) continue;
        const fs::path file = entry / relative_file(kind, "").filename();
        if (is_file(file)) {
          consider(entry.filename().string(), file);
        } else if (entry.filename().string().front() != '.') {
          warnings.push_back(Problem{entry.string(), "",
                                     "directory has no " + file.filename().string() + "; it is skipped"});
        }
      }
    }
    if (ec) {
      warnings.push_back(Problem{dir.string(), "", "could not read the directory: " + ec.message()});
    }
  }

  std::vector<Location> out;
  out.reserve(found.size());
  for (auto& [name, location] : found) out.push_back(std::move(location));
  return out;
}

bool is_within(const fs::path& path, const fs::path& root) {
  const fs::path p = without_trailing_slash(path), r = without_trailing_slash(root);
  auto [r_end, p_at] = std::mismatch(r.begin(), r.end(), p.begin(), p.end());
  return r_end == r.end();
}

}  // namespace agentry::definitions
