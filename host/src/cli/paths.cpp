#include "cli/paths.hpp"

#include <cstdlib>
#include <string>

namespace agentry::cli {
namespace fs = std::filesystem;
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

core::Result<fs::path> xdg_dir(const char* override_var, const char* xdg_var, const char* home_suffix) {
  if (auto v = env(override_var); !v.empty()) return fs::path(v);
  if (auto v = env(xdg_var); !v.empty()) return fs::path(v) / "agentry";
  if (auto v = env("HOME"); !v.empty()) return fs::path(v) / home_suffix / "agentry";
  return core::fail(core::ErrorCode::validation,
                    std::string("cannot choose a directory: set ") + override_var + " (HOME is not set either)");
}

fs::path own_binary() {
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe;
}

}  // namespace

core::Result<Paths> resolve_paths() {
  Paths p;
  auto home = xdg_dir("AGENTRY_HOME", "XDG_STATE_HOME", ".local/state");
  if (!home) return home.failure();
  auto config = xdg_dir("AGENTRY_CONFIG_DIR", "XDG_CONFIG_HOME", ".config");
  if (!config) return config.failure();
  p.home = fs::absolute(*home);
  p.config_dir = fs::absolute(*config);
  p.binary = own_binary();
  auto web = env("AGENTRY_WEB_DIR");
  if (!web.empty()) p.web_dir = fs::absolute(web);
  else if (!p.binary.empty()) p.web_dir = p.binary.parent_path().parent_path() / "share" / "agentry" / "web";
  return p;
}

}  // namespace agentry::cli
