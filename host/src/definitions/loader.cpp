#include "definitions/loader.hpp"

#include "definitions/locator.hpp"
#include "definitions/parsers.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <tuple>

#include <sys/stat.h>

namespace fs = std::filesystem;

namespace agentry::definitions {
namespace {

template <class T>
using Parser = std::optional<T> (*)(const Location&, const Roots&, Diagnostics&);

/// What identifies one version of a file: a write changes the size or the times (ctime
/// cannot be set back by anyone), a replacing rename changes the inode.
struct FileStamp {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

std::optional<FileStamp> stamp_of(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  constexpr std::int64_t ns = 1'000'000'000;
  return FileStamp{st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec * ns + st.st_mtim.tv_nsec,
                   st.st_ctim.tv_sec * ns + st.st_ctim.tv_nsec};
}

/// A file changed this recently may change again within the file system's timestamp
/// granularity without its stamp changing, so its parse is not kept (it is read again
/// next time, until it has been left alone for this long).
constexpr std::int64_t settle_ns = 2'000'000'000;

std::int64_t wall_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// A successful single load, kept while its file is unchanged: parsing (yaml-cpp) is
/// most of what resolving definitions costs, and a run is created from the same few
/// files again and again. Only definitions read from one file are kept (an assignment
/// whose tasks come from other files is always read again), and a hit also checks that
/// the environment variables the file interpolated still have the values it got.
template <class T>
class ParseCache {
 public:
  std::optional<T> find(const Location& location, bool trusted, const FileStamp& stamp, const EnvLookup& env) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key(location, trusted));
    if (it == entries_.end() || !(it->second.stamp == stamp)) return std::nullopt;
    for (const auto& [name, value] : it->second.env)
      if (env(name) != value) return std::nullopt;
    return it->second.definition;
  }

  void store(const Location& location, bool trusted, const FileStamp& stamp, const T& definition,
             std::vector<std::pair<std::string, std::optional<std::string>>> env) {
    std::lock_guard lock(mutex_);
    if (entries_.size() >= max_entries) entries_.clear();
    entries_[key(location, trusted)] = Entry{stamp, definition, std::move(env)};
  }

 private:
  static constexpr std::size_t max_entries = 256;
  // Trust is part of the key: the same project file parses differently before and after.
  using Key = std::tuple<std::string, std::optional<std::string>, bool>;
  static Key key(const Location& location, bool trusted) { return {location.file.string(), location.name, trusted}; }

  struct Entry {
    FileStamp stamp;
    T definition;
    std::vector<std::pair<std::string, std::optional<std::string>>> env;
  };
  std::mutex mutex_;
  std::map<Key, Entry> entries_;
};

template <class T>
bool reads_one_file(const T&) {
  return true;
}

bool reads_one_file(const AssignmentDefinition& assignment) {
  for (const auto& task : assignment.tasks)
    if (task.source != "inline") return false;
  return true;
}

template <class T>
core::Result<T> load(const Roots& roots, Kind kind, std::string_view target,
                     const std::optional<fs::path>& cwd, Parser<T> parse) {
  static ParseCache<T> cache;
  auto location = locate(roots, kind, target, cwd);
  if (!location) return location.failure();
  const EnvLookup env = env_or_process(roots.getenv);
  const auto stamp = stamp_of(location->file);
  if (stamp)
    if (auto cached = cache.find(*location, roots.project_trusted, *stamp, env)) return std::move(*cached);

  // Parse with an environment that notes what the file looked up.
  std::vector<std::pair<std::string, std::optional<std::string>>> looked_up;
  Roots recording = roots;
  recording.getenv = [&env, &looked_up](std::string_view name) {
    auto value = env(name);
    looked_up.emplace_back(std::string(name), value);
    return value;
  };
  Diagnostics diag(location->file.string());
  auto definition = parse(*location, recording, diag);
  if (!definition) {
    // No errors means a warning made the parser skip the file (a mismatched name):
    // for a single load that warning is the answer.
    return core::fail(validation_error(diag.has_errors() ? diag.errors() : diag.warnings()));
  }
  definition->warnings = diag.warnings();
  // Kept only if the file is the version that was stat'ed before the read and has settled.
  if (stamp && reads_one_file(*definition) && stamp_of(location->file) == stamp &&
      wall_clock_ns() - std::max(stamp->mtime_ns, stamp->ctime_ns) > settle_ns)
    cache.store(*location, roots.project_trusted, *stamp, *definition, std::move(looked_up));
  return std::move(*definition);
}

template <class T>
ListResult<T> list(const Roots& roots, Kind kind, Parser<T> parse) {
  ListResult<T> out;
  for (const auto& location : enumerate(roots, kind, out.warnings)) {
    Diagnostics diag(location.file.string());
    auto definition = parse(location, roots, diag);
    out.warnings.insert(out.warnings.end(), diag.errors().begin(), diag.errors().end());
    out.warnings.insert(out.warnings.end(), diag.warnings().begin(), diag.warnings().end());
    if (!definition) continue;
    definition->warnings = diag.warnings();
    out.entries.push_back(std::move(*definition));
  }
  return out;
}

}  // namespace

core::Result<AgentDefinition> load_agent(const Roots& roots, std::string_view target,
                                         const std::optional<fs::path>& cwd) {
  return load<AgentDefinition>(roots, Kind::agent, target, cwd, &parse_agent);
}

core::Result<AssignmentDefinition> load_assignment(const Roots& roots, std::string_view target,
                                                   const std::optional<fs::path>& cwd) {
  return load<AssignmentDefinition>(roots, Kind::assignment, target, cwd, &parse_assignment);
}

core::Result<LauncherDefinition> load_launcher(const Roots& roots, std::string_view target,
                                               const std::optional<fs::path>& cwd) {
  return load<LauncherDefinition>(roots, Kind::launcher, target, cwd, &parse_launcher);
}

core::Result<EnvironmentDefinition> load_environment(const Roots& roots, std::string_view target,
                                                     const std::optional<fs::path>& cwd) {
  return load<EnvironmentDefinition>(roots, Kind::environment, target, cwd, &parse_environment);
}

core::Result<TaskDefinition> load_task_definition(const Roots& roots, std::string_view target,
                                                  const std::optional<fs::path>& cwd) {
  return load<TaskDefinition>(roots, Kind::task, target, cwd, &parse_task_definition);
}

namespace {

/// The roots a trigger may come from: the config directory, never a project's.
Roots config_dir_only(const Roots& roots) {
  Roots out = roots;
  out.project_dir.reset();
  out.project_trusted = false;
  return out;
}

}  // namespace

core::Result<TriggerDefinition> load_trigger(const Roots& roots, std::string_view name) {
  if (is_path_target(name) || !is_valid_name(Kind::trigger, name))
    return core::fail(core::ErrorCode::invalid_request,
                      "'" + std::string(name) + "' is not a trigger name: use letters, digits, '.', '_' and '-'",
                      {{"kind", "trigger"}, {"name", name}});
  return load<TriggerDefinition>(config_dir_only(roots), Kind::trigger, name, std::nullopt, &parse_trigger);
}

ListResult<AgentDefinition> list_agents(const Roots& roots) {
  return list<AgentDefinition>(roots, Kind::agent, &parse_agent);
}

ListResult<AssignmentDefinition> list_assignments(const Roots& roots) {
  return list<AssignmentDefinition>(roots, Kind::assignment, &parse_assignment);
}

ListResult<LauncherDefinition> list_launchers(const Roots& roots) {
  return list<LauncherDefinition>(roots, Kind::launcher, &parse_launcher);
}

ListResult<EnvironmentDefinition> list_environments(const Roots& roots) {
  return list<EnvironmentDefinition>(roots, Kind::environment, &parse_environment);
}

ListResult<TaskDefinition> list_task_definitions(const Roots& roots) {
  return list<TaskDefinition>(roots, Kind::task, &parse_task_definition);
}

ListResult<TriggerDefinition> list_triggers(const Roots& roots) {
  return list<TriggerDefinition>(config_dir_only(roots), Kind::trigger, &parse_trigger);
}

}  // namespace agentry::definitions
