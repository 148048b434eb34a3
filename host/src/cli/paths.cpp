#include "cli/paths.hpp"

#include <string>

namespace agentry::cli {
namespace fs = std::filesystem;
namespace {

/// `given` when set, else `xdg`/agentry, else $HOME/`home_suffix`/agentry.
core::Result<fs::path> xdg_dir(const std::string& given, const char* given_var, const std::string& xdg,
                               const std::string& user_home, const char* home_suffix) {
  if (!given.empty()) return fs::path(given);
  if (!xdg.empty()) return fs::path(xdg) / "agentry";
  if (!user_home.empty()) return fs::path(user_home) / home_suffix / "agentry";
  return core::fail(core::ErrorCode::validation,
                    std::string("cannot choose a directory: set ") + given_var + " (HOME is not set either)");
}

fs::path own_binary() {
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe;
}

}  // namespace

core::Result<Paths> resolve_paths(const core::Settings& settings) {
  Paths p;
  auto home = xdg_dir(settings.home, "AGENTRY_HOME", settings.xdg_state_home, settings.user_home, ".local/state");
  if (!home) return home.failure();
  auto config =
      xdg_dir(settings.config_dir, "AGENTRY_CONFIG_DIR", settings.xdg_config_home, settings.user_home, ".config");
  if (!config) return config.failure();
  p.home = fs::absolute(*home);
  p.config_dir = fs::absolute(*config);
  p.blob_dir = settings.blob_dir.empty() ? p.home / "blobs" : fs::absolute(settings.blob_dir);
  p.binary = own_binary();
  if (!settings.web_dir.empty()) p.web_dir = fs::absolute(settings.web_dir);
  else if (!p.binary.empty()) p.web_dir = p.binary.parent_path().parent_path() / "share" / "agentry" / "web";
  return p;
}

}  // namespace agentry::cli
