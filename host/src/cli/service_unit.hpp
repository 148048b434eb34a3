#pragma once
// The systemd user unit `agentry service install` writes (commands/service_commands.cpp):
// where it goes, what it says, and the environment file beside it. The unit runs
// `<this binary> serve --listen <url>` with the user's agentry settings as they are in
// the installing shell, restarts on failure (but not on a refused configuration, exit
// 3: restarting would not fix it) and is wanted by default.target, so it starts at login
// (at boot too once `loginctl enable-linger` is on). Secrets never appear in the unit:
// they go to an environment file of mode 0600 that the unit reads.

#include "cli/environment.hpp"
#include "core/result.hpp"
#include "core/settings.hpp"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace agentry::cli {

inline constexpr const char* service_unit_name = "agentry.service";

/// Where the unit and its environment file go: $XDG_CONFIG_HOME/systemd/user/agentry.service
/// and $XDG_CONFIG_HOME/agentry/service.env (else under $HOME/.config).
struct ServiceFiles {
  std::filesystem::path unit;
  std::filesystem::path environment_file;
};
core::Result<ServiceFiles> service_files(const core::Settings& settings);

using Variables = std::vector<std::pair<std::string, std::string>>;

struct ServiceUnit {
  std::filesystem::path binary;  // absolute
  std::string listen;            // serve --listen
  Variables environment;         // written into the unit, in clear
  Variables secrets;             // written only into the environment file
  std::filesystem::path environment_file;
};

/// The unit for this agentry: `binary`, `listen`, the home and config directories as
/// resolved now (absolute, so the service uses the store and definitions this shell
/// does), every AGENTRY_* setting the environment sets (not the client-only ones nor
/// AGENTRY_LISTEN, which is `listen`), the backend program variables and PATH (so the
/// agents' CLIs are found as here). AGENTRY_DAEMON_TOKEN and a store URI with a password
/// are secrets.
ServiceUnit service_unit(const std::filesystem::path& binary, const std::string& listen,
                         const std::filesystem::path& home, const std::filesystem::path& config_dir,
                         const core::Settings& settings, const Environment& env, const ServiceFiles& files);

/// The unit file's text.
std::string render_unit(const ServiceUnit& unit);
/// The environment file's text: `existing` (the file as it is, may be empty) without the
/// lines that set one of `secrets`, then `secrets`, so what a user added there stays.
std::string render_environment_file(const std::string& existing, const Variables& secrets);

}  // namespace agentry::cli
