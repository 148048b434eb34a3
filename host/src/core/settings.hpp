#pragma once
// Every documented AGENTRY_* setting, parsed once when agentry starts, from the
// environment (and the flags that stand for some of them). This is the one place
// agentry reads its settings from the environment. A value that does not parse
// or is out of range is an error naming the variable, the value and what is allowed:
// never silently replaced by the default, as `atol` used to. `agentry config` prints the
// effective settings and where each came from.

#include "core/result.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentry::core {

/// Where an effective setting came from.
enum class SettingOrigin { built_in, environment, flag };
std::string_view to_string(SettingOrigin origin);

struct Settings {
  // Where things are (empty: the defaults cli/paths.hpp works out).
  std::string listen = "ws://127.0.0.1:4773/";
  /// serve's Unix socket: a path, "none", or empty for <home>/socket/agentry.sock
  /// (cli/daemon_socket.hpp).
  std::string socket;
  std::string connect;
  /// A client's waits on a daemon: to connect, and for one call's answer.
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds call_timeout{60000};
  std::string home;
  /// Empty: the embedded SQLite file under home. Else a PostgreSQL URI
  /// (postgresql://user@host:port/db): every daemon on it is a member of one cluster.
  std::string store;
  /// This daemon as a member of its store's cluster (engine/membership/): its name
  /// (empty: the host name), the URL others reach it at (empty: its listen URL), its
  /// labels, the live runs it takes at most (0: no limit), and the lease time, which
  /// sets how often it renews its heartbeat and when a silent member counts as dead.
  std::string daemon_name;
  std::string advertise_url;
  std::vector<std::string> labels;
  std::int64_t max_live_runs = 0;
  /// The directories this daemon has runs' working directories under (core/placement.hpp);
  /// empty: it declares none and takes any directory it has.
  std::vector<std::string> workspace_roots;
  std::chrono::milliseconds lease_ttl{10000};
  std::string config_dir;
  /// Attachment contents (empty: <home>/blobs); on a shared store, one directory every
  /// member mounts, so that each serves every run's attachments.
  std::string blob_dir;
  std::string web_dir;
  std::string web_base_path;
  /// The second listener that speaks agent-runner's wire (api/compat/); empty: none.
  /// Its dashboard's built files, their mount, and the cwd of web starts that name none.
  std::string compat_listen;
  std::string compat_web_dir;
  std::string compat_web_base_path;
  std::string compat_default_cwd;
  std::string plugin_path;  // colon-separated directories
  std::string log_level = "info";
  // What the defaults of home and config_dir are worked out from (cli/paths.hpp): the
  // XDG base directories, else the user's home. Not agentry's own variables, but read
  // here too, so that the environment is read in one place.
  std::string xdg_state_home;
  std::string xdg_config_home;
  std::string user_home;  // HOME

  // The HTTP server.
  std::chrono::milliseconds http_read_timeout{30000};
  std::chrono::milliseconds http_idle_timeout{5000};
  std::chrono::milliseconds http_write_timeout{30000};
  std::chrono::milliseconds sse_heartbeat{15000};
  std::int64_t http_max_connections = 512;
  /// Host names (lower case, without port) and origins (lower case scheme://host[:port])
  /// the browser guard lets in besides its defaults (api/browser_guard.hpp).
  std::vector<std::string> allowed_hosts;
  std::vector<std::string> allowed_origins;
  bool auth_enabled = false;
  /// The bearer token, trimmed; empty when unset. A secret: `agentry config` shows only
  /// "(set)", and it is never logged.
  std::string daemon_token;

  // Runs.
  int max_call_depth = 8;
  /// The daemon's stream memory: bytes of backend events all live runs together may hold
  /// until the store has them (past it, backends are told to retry, AGENTRY_ERR_BUSY) and
  /// of the live timeline windows (at most three quarters of it; they shrink past it).
  std::int64_t stream_memory_bytes = std::int64_t{8} << 20;
  int min_recurrence_interval_sec = 300;
  std::chrono::milliseconds interrupt_grace{10000};
  std::chrono::milliseconds daemon_lock_wait{30000};
  std::vector<std::string> project_env_allow;
  int child_resume_limit = 6;
  int child_resume_window_sec = 60;
  int max_live_children = 32;
  /// Threads for work that waits: hooks, libgit2 (core/blocking_pool.hpp).
  int blocking_threads = 16;
  /// JavaScript module hooks (engine/hooks/module_hook.hpp): the node program, and how
  /// long one hook call may take.
  std::string node = "node";
  int module_hook_timeout_sec = 120;

  // Background work of a serving daemon.
  std::chrono::milliseconds notify_poll{1000};
  std::vector<std::chrono::milliseconds> notify_backoff{std::chrono::milliseconds(1000), std::chrono::milliseconds(5000)};
  std::chrono::milliseconds notify_timeout{10000};
  std::chrono::milliseconds foreign_change_interval{1000};
  std::chrono::milliseconds reconcile_interval{30000};

  /// Every setting as `agentry config` shows it, in the order of the table.
  struct Entry {
    std::string name;      // the environment variable
    std::string value;     // as effective; "(set)" for a secret
    SettingOrigin origin;
    std::string meaning;   // one line
  };
  std::vector<Entry> entries;
};

/// Looks a variable up: nullopt when unset.
using SettingLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// Parses every setting from `env`, then from `flags` (variable name -> value, e.g.
/// {"AGENTRY_LISTEN", "ws://127.0.0.1:0/"} for --listen), which win. An empty variable
/// counts as unset. VALIDATION_FAILED for the first bad value, its message naming the
/// variable, the value and what is allowed; details { variable, value, allowed }.
Result<Settings> parse_settings(const SettingLookup& env,
                                const std::vector<std::pair<std::string, std::string>>& flags = {});

/// This process's environment as a SettingLookup.
SettingLookup process_settings_env();

}  // namespace agentry::core
