#include "agentry/plugin_common/environment.hpp"

#include <cerrno>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

extern "C" char** environ;  // NOLINT: POSIX

namespace agentry::plugin_common {

EnvironmentBuilder EnvironmentBuilder::inherited() {
  EnvironmentBuilder builder;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) builder.set_entry(*entry);
  return builder;
}

void EnvironmentBuilder::set(std::string_view key, std::string_view value) {
  std::string entry;
  entry.reserve(key.size() + 1 + value.size());
  entry.append(key).append("=").append(value);
  const auto [it, inserted] = index_.try_emplace(std::string(key), entries_.size());
  if (inserted) entries_.push_back(std::move(entry));
  else entries_[it->second] = std::move(entry);
}

void EnvironmentBuilder::unset(std::string_view key) {
  if (const auto it = index_.find(std::string(key)); it != index_.end()) entries_[it->second].clear();
}

void EnvironmentBuilder::set_entry(std::string_view entry) {
  const std::size_t eq = entry.find('=');
  if (eq == std::string_view::npos || eq == 0) return;
  set(entry.substr(0, eq), entry.substr(eq + 1));
}

std::vector<std::string> EnvironmentBuilder::take() {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (std::string& entry : entries_)
    if (!entry.empty()) out.push_back(std::move(entry));
  entries_.clear();
  index_.clear();
  return out;
}

std::optional<std::string_view> find_variable(const std::vector<std::string>& env, std::string_view key) {
  for (const std::string& entry : env) {
    const std::string_view view(entry);
    if (view.size() > key.size() && view[key.size()] == '=' && view.substr(0, key.size()) == key)
      return view.substr(key.size() + 1);
  }
  return std::nullopt;
}

bool valid_variable_name(std::string_view key) noexcept {
  return !key.empty() && key.find('=') == std::string_view::npos && key.find('\0') == std::string_view::npos;
}

namespace {

enum class Probe { missing, directory, not_executable, ok };

Probe probe(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Probe::missing;
  if (S_ISDIR(st.st_mode)) return Probe::directory;
  if (!S_ISREG(st.st_mode) || ::access(path.c_str(), X_OK) != 0) return Probe::not_executable;
  return Probe::ok;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

ResolvedProgram resolve_program(const std::string& program, const std::vector<std::string>& env,
                                const std::string& cwd) {
  if (program.empty()) return {{}, "the command's program is an empty string"};
  if (program.find('/') != std::string::npos) {
    const std::string path = program.front() == '/' ? program : cwd + "/" + program;
    switch (probe(path)) {
      case Probe::ok: return {path, {}};
      case Probe::missing: return {{}, "command " + quoted(program) + " not found"};
      case Probe::directory: return {{}, "command " + quoted(program) + " is a directory"};
      case Probe::not_executable: return {{}, "command " + quoted(program) + " is not executable"};
    }
  }
  const std::string search(find_variable(env, "PATH").value_or("/usr/local/bin:/usr/bin:/bin"));
  std::string not_executable;
  for (std::size_t begin = 0; begin <= search.size();) {
    std::size_t end = search.find(':', begin);
    if (end == std::string::npos) end = search.size();
    std::string dir = search.substr(begin, end - begin);
    if (dir.empty()) dir = cwd;  // an empty PATH entry means the current directory
    else if (dir.front() != '/') dir = cwd + "/" + dir;
    const std::string candidate = dir + "/" + program;
    const Probe found = probe(candidate);
    if (found == Probe::ok) return {candidate, {}};
    if (found == Probe::not_executable && not_executable.empty()) not_executable = candidate;
    begin = end + 1;
  }
  if (!not_executable.empty())
    return {{}, "command " + quoted(program) + " found at " + quoted(not_executable) + " but it is not executable"};
  return {{}, "command " + quoted(program) + " not found in PATH"};
}

std::string check_workspace(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return "workspace directory " + quoted(path) + " is not accessible: " + std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return "workspace " + quoted(path) + " is not a directory";
  return {};
}

}  // namespace agentry::plugin_common
