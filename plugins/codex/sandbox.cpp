#include "sandbox.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "agentry/plugin_common/environment.hpp"

namespace agentry::codex {

namespace fs = std::filesystem;
using plugin_common::find_variable;

namespace {

// The names codex links to itself in a directory it puts in front of PATH (its "arg0"
// dispatch): bubblewrap runs codex-linux-sandbox, the model may call apply_patch.
constexpr const char* kHelperNames[] = {"codex-linux-sandbox", "apply_patch", "applypatch"};

std::vector<std::string> components(const fs::path& p) {
  std::vector<std::string> out;
  for (const fs::path& part : p.lexically_normal())
    if (!part.empty()) out.push_back(part.string());
  return out;
}

// Component-wise, as Rust's Path::starts_with ("/tmpfoo" is not inside "/tmp").
bool inside(const fs::path& path, const fs::path& dir) {
  const std::vector<std::string> p = components(path), d = components(dir);
  if (d.empty() || p.size() < d.size()) return false;
  for (std::size_t i = 0; i < d.size(); ++i)
    if (p[i] != d[i]) return false;
  return true;
}

// The path as written and as resolved (codex resolves CODEX_HOME; the temp dir may be a link).
std::vector<fs::path> spellings(const std::string& path) {
  std::vector<fs::path> out{fs::path(path)};
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(path, ec);
  if (!ec && resolved != out.front()) out.push_back(resolved);
  return out;
}

// The first line of `text` that is not empty.
std::string_view first_line(std::string_view text) {
  while (!text.empty() && (text.front() == '\n' || text.front() == '\r')) text.remove_prefix(1);
  const std::size_t end = text.find_first_of("\r\n");
  return text.substr(0, end);
}

bool contains(std::string_view text, std::string_view what) { return text.find(what) != std::string_view::npos; }

constexpr std::string_view kWithoutSandbox =
    "or, where something else already isolates the run, set backendConfig.codex.sandbox to danger-full-access "
    "(an unrestricted run does so by default)";

}  // namespace

std::string temp_dir_of(const std::vector<std::string>& env) {
  const std::optional<std::string_view> tmpdir = find_variable(env, "TMPDIR");
  return tmpdir && !tmpdir->empty() ? std::string(*tmpdir) : std::string("/tmp");
}

std::string codex_home_of(const std::vector<std::string>& env) {
  if (const std::optional<std::string_view> home = find_variable(env, "CODEX_HOME"); home && !home->empty())
    return std::string(*home);
  if (const std::optional<std::string_view> home = find_variable(env, "HOME"); home && !home->empty())
    return (fs::path(std::string(*home)) / ".codex").string();
  return {};
}

bool codex_makes_no_helper_links(const std::vector<std::string>& env) {
  const std::string home = codex_home_of(env);
  if (home.empty()) return false;
  for (const fs::path& h : spellings(home))
    for (const fs::path& t : spellings(temp_dir_of(env)))
      if (inside(h, t)) return true;
  return false;
}

HelperLinks::HelperLinks(const std::string& codex_binary, const std::string& temp_dir) {
  std::string pattern = (fs::path(temp_dir) / "agentry-codex-helpers-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)  // mode 0700: nobody else can put a program here
    throw std::runtime_error("cannot make a directory in " + temp_dir + ": " + std::strerror(errno));
  dir_ = pattern;
  for (const char* name : kHelperNames) {
    if (::symlink(codex_binary.c_str(), (fs::path(dir_) / name).c_str()) != 0) {
      const int err = errno;
      std::error_code ec;
      fs::remove_all(dir_, ec);
      throw std::runtime_error(std::string("cannot link ") + name + " in " + pattern + ": " + std::strerror(err));
    }
  }
}

HelperLinks::~HelperLinks() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::vector<std::string> with_path_prefix(std::vector<std::string> env, const std::string& dir) {
  for (std::string& entry : env)
    if (entry.rfind("PATH=", 0) == 0) {
      entry = "PATH=" + dir + (entry.size() > 5 ? ":" + entry.substr(5) : std::string());
      return env;
    }
  env.push_back("PATH=" + dir + ":/usr/local/bin:/usr/bin:/bin");  // execvp's default, after ours
  return env;
}

std::optional<std::string> sandbox_failure_message(std::string_view output) {
  const std::string_view line = first_line(output);
  if (line.rfind("bwrap: ", 0) != 0) return std::nullopt;  // bubblewrap's own words, before the command
  std::string message = "codex's sandbox did not start, so the command did not run (" + std::string(line) + "). ";
  if (contains(line, "codex-linux-sandbox")) {
    message +=
        "Codex runs commands inside bubblewrap; it found a system bwrap older than 0.9, which then needs codex's "
        "helper codex-linux-sandbox on PATH, and codex makes no such helper while its CODEX_HOME is in the temp dir "
        "($TMPDIR or /tmp). To fix it, keep codexHome (CODEX_HOME) outside the temp dir, install bubblewrap 0.9 or "
        "newer, or remove the system bubblewrap so codex uses its own; ";
  } else if (contains(line, "namespace") || contains(line, "uid map") || contains(line, "gid map")) {
    message +=
        "Codex runs commands inside bubblewrap, which needs user namespaces, and this machine does not allow them "
        "(containers often forbid them). To fix it, allow unprivileged user namespaces (Debian: sysctl "
        "kernel.unprivileged_userns_clone=1; user.max_user_namespaces above 0; Ubuntu 24.04: an AppArmor profile "
        "for bwrap); ";
  } else {
    message +=
        "Codex runs commands inside bubblewrap, and bubblewrap failed on this machine. To fix it, see \"The Linux "
        "sandbox\" in agentry's docs/backends/codex.md; ";
  }
  message += kWithoutSandbox;
  message += ".";
  return message;
}

}  // namespace agentry::codex
