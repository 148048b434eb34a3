#include "core/settings.hpp"

#include "core/placement.hpp"
#include "core/uri_secrets.hpp"
#include "core/web_origin.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace agentry::core {
namespace {

using Apply = std::function<Result<void>(Settings&, std::string_view)>;
using Show = std::function<std::string(const Settings&)>;

/// One row of the table: how a variable is read into Settings and shown again.
struct Spec {
  const char* name;
  const char* meaning;
  Apply apply;
  Show show;
};

Failure bad_value(std::string_view name, std::string_view value, std::string allowed) {
  return fail(ErrorCode::validation,
              std::string(name) + "='" + std::string(value) + "' is not valid: " + allowed,
              {{"variable", name}, {"value", value}, {"allowed", allowed}});
}

std::string trim(std::string_view text) {
  // What std::isspace calls space, as the daemon token was always trimmed.
  constexpr std::string_view space = " \t\r\n\v\f";
  const auto begin = text.find_first_not_of(space);
  if (begin == std::string_view::npos) return {};
  const auto end = text.find_last_not_of(space);
  return std::string(text.substr(begin, end - begin + 1));
}

std::optional<std::int64_t> whole_number(std::string_view text) {
  const std::string t = trim(text);
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty()) return std::nullopt;
  return value;
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (auto item = trim(text.substr(start, comma - start)); !item.empty()) out.push_back(std::move(item));
    start = comma + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

template <class T>
Spec whole(const char* name, const char* meaning, T Settings::*member, std::int64_t low, std::int64_t high) {
  return Spec{name, meaning,
              [=](Settings& s, std::string_view value) -> Result<void> {
                auto n = whole_number(value);
                if (!n || *n < low || *n > high)
                  return bad_value(name, value,
                                   "a whole number from " + std::to_string(low) + " to " + std::to_string(high));
                s.*member = static_cast<T>(*n);
                return ok();
              },
              [=](const Settings& s) { return std::to_string(s.*member); }};
}

Spec millis(const char* name, const char* meaning, std::chrono::milliseconds Settings::*member, std::int64_t low) {
  constexpr std::int64_t day_ms = 24LL * 3600 * 1000;
  return Spec{name, meaning,
              [=](Settings& s, std::string_view value) -> Result<void> {
                auto n = whole_number(value);
                if (!n || *n < low || *n > day_ms)
                  return bad_value(name, value,
                                   "a whole number of milliseconds from " + std::to_string(low) + " to " +
                                       std::to_string(day_ms) + " (a day)");
                s.*member = std::chrono::milliseconds(*n);
                return ok();
              },
              [=](const Settings& s) { return std::to_string((s.*member).count()); }};
}

Spec text(const char* name, const char* meaning, std::string Settings::*member) {
  return Spec{name, meaning,
              [=](Settings& s, std::string_view value) -> Result<void> {
                s.*member = std::string(value);
                return ok();
              },
              [=](const Settings& s) { return s.*member; }};
}

Spec list(const char* name, const char* meaning, std::vector<std::string> Settings::*member) {
  return Spec{name, meaning,
              [=](Settings& s, std::string_view value) -> Result<void> {
                s.*member = split_list(value);
                return ok();
              },
              [=](const Settings& s) { return join(s.*member); }};
}

/// A comma-separated list each of whose entries `normalize` accepts (a non-empty result),
/// kept as normalized.
Spec checked_list(const char* name, const char* meaning, std::vector<std::string> Settings::*member,
                  std::string (*normalize)(std::string_view), const char* allowed) {
  return Spec{name, meaning,
              [=](Settings& s, std::string_view value) -> Result<void> {
                std::vector<std::string> items;
                for (const auto& item : split_list(value)) {
                  std::string normal = normalize(item);
                  if (normal.empty()) return bad_value(name, value, std::string(allowed) + "; '" + item + "' is not one");
                  items.push_back(std::move(normal));
                }
                s.*member = std::move(items);
                return ok();
              },
              [=](const Settings& s) { return join(s.*member); }};
}

/// An allowed origin: scheme://host[:port], nothing after it (a path is never part of
/// what a browser sends as Origin, so an entry with one could never match).
std::string allowed_origin(std::string_view entry) {
  const auto authority = entry.find("://");
  if (authority == std::string_view::npos || entry.find('/', authority + 3) != std::string_view::npos) return {};
  return normalized_origin(entry);
}

/// A label (core/placement.hpp), kept as given.
std::string label(std::string_view entry) { return is_valid_label(entry) ? std::string(entry) : std::string(); }

/// The advertised URL: http(s)://host[:port][/path], as other members and clients dial it.
std::string advertise_url(std::string_view entry) {
  const bool http = entry.rfind("http://", 0) == 0 || entry.rfind("https://", 0) == 0;
  const auto authority = entry.find("://") + 3;
  return http && entry.size() > authority && entry.find_first_of(" \t\n") == std::string_view::npos
             ? std::string(entry)
             : std::string();
}

std::optional<bool> parse_flag(std::string_view value) {
  std::string t = trim(value);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (t == "true" || t == "1" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "0" || t == "no" || t == "off") return false;
  return std::nullopt;
}

const std::vector<Spec>& specs() {
  static const std::vector<Spec> table = {
      text("AGENTRY_LISTEN", "where serve listens (same as --listen)", &Settings::listen),
      text("AGENTRY_SOCKET",
           "serve's Unix socket too (same as --socket); none: no socket (empty: $AGENTRY_HOME/socket/agentry.sock)",
           &Settings::socket),
      text("AGENTRY_CONNECT", "client commands: the daemon to use; empty: embedded", &Settings::connect),
      millis("AGENTRY_CONNECT_TIMEOUT_MS", "client commands: how long connecting to the daemon may take",
             &Settings::connect_timeout, 1),
      millis("AGENTRY_CALL_TIMEOUT_MS", "client commands: how long one call to the daemon may take",
             &Settings::call_timeout, 1),
      text("AGENTRY_HOME", "the database and other state (empty: $XDG_STATE_HOME/agentry)", &Settings::home),
      Spec{"AGENTRY_STORE", "sqlite (the file under AGENTRY_HOME) or a PostgreSQL URI shared by several daemons",
           [](Settings& s, std::string_view value) -> Result<void> {
             const std::string store = trim(value);
             if (store == "sqlite") {
               s.store.clear();
             } else if (store.rfind("postgresql://", 0) == 0 || store.rfind("postgres://", 0) == 0) {
               s.store = store;
             } else {
               return bad_value("AGENTRY_STORE", redact_uri(value),
                                "sqlite, or a PostgreSQL URI such as postgresql://agentry@db.internal:5432/agentry");
             }
             return ok();
           },
           [](const Settings& s) { return s.store.empty() ? std::string("sqlite") : redact_uri(s.store); }},
      text("AGENTRY_DAEMON_NAME", "this daemon's name among the store's members (empty: the host name)",
           &Settings::daemon_name),
      Spec{"AGENTRY_ADVERTISE_URL", "the URL other members and clients reach this daemon at (empty: its listen URL)",
           [](Settings& s, std::string_view value) -> Result<void> {
             s.advertise_url = advertise_url(trim(value));
             if (s.advertise_url.empty())
               return bad_value("AGENTRY_ADVERTISE_URL", value, "an http:// or https:// URL, e.g. http://10.0.0.7:4773");
             return ok();
           },
           [](const Settings& s) { return s.advertise_url; }},
      checked_list("AGENTRY_LABELS", "this daemon's labels, shown to the other members", &Settings::labels, label,
                   "comma-separated labels of letters, digits and . _ - : = /, e.g. gpu,region=eu"),
      whole("AGENTRY_MAX_LIVE_RUNS", "live runs this daemon says it takes at most (0: no limit)",
            &Settings::max_live_runs, 0, 100000),
      Spec{"AGENTRY_WORKSPACE_ROOTS",
           "directories (colon-separated) runs' working directories must be under for this daemon to take them",
           [](Settings& s, std::string_view value) -> Result<void> {
             std::vector<std::string> roots;
             std::string_view rest = value;
             while (!rest.empty()) {
               const auto colon = rest.find(':');
               const std::string entry = trim(rest.substr(0, colon));
               rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
               if (entry.empty()) continue;
               std::string root = normal_workspace_root(entry);
               if (root.empty())
                 return bad_value("AGENTRY_WORKSPACE_ROOTS", value,
                                  "colon-separated absolute directories, e.g. /srv/work:/home/ci; '" + entry +
                                      "' is not one");
               roots.push_back(std::move(root));
             }
             s.workspace_roots = std::move(roots);
             return ok();
           },
           [](const Settings& s) {
             std::string out;
             for (const auto& root : s.workspace_roots) out += (out.empty() ? "" : ":") + root;
             return out;
           }},
      millis("AGENTRY_LEASE_TTL_MS", "how long a member may be silent before it counts as dead and its runs are taken over",
             &Settings::lease_ttl, 1000),
      text("AGENTRY_CONFIG_DIR", "definitions (empty: $XDG_CONFIG_HOME/agentry)", &Settings::config_dir),
      text("AGENTRY_BLOB_DIR", "attachment contents (empty: $AGENTRY_HOME/blobs); one shared directory for every member of a shared store",
           &Settings::blob_dir),
      text("AGENTRY_WEB_DIR", "the built dashboard (empty: next to the binary)", &Settings::web_dir),
      text("AGENTRY_WEB_BASE_PATH", "a reverse proxy's mount of every route", &Settings::web_base_path),
      text("AGENTRY_COMPAT_LISTEN",
           "serve also speaks agent-runner's wire here (e.g. ws://127.0.0.1:4773/); empty: not at all",
           &Settings::compat_listen),
      text("AGENTRY_COMPAT_WEB_DIR", "agent-runner's built dashboard, served on the compat listener",
           &Settings::compat_web_dir),
      text("AGENTRY_COMPAT_WEB_BASE_PATH", "the compat listener's mount of every route (e.g. /agent-runner)",
           &Settings::compat_web_base_path),
      text("AGENTRY_COMPAT_DEFAULT_CWD", "the cwd of runs started on the compat listener that name none (empty: serve's cwd)",
           &Settings::compat_default_cwd),
      text("AGENTRY_PLUGIN_PATH", "extra directories (colon-separated) searched for backend plugins",
           &Settings::plugin_path),
      text("XDG_STATE_HOME", "AGENTRY_HOME's default is under it (empty: $HOME/.local/state)",
           &Settings::xdg_state_home),
      text("XDG_CONFIG_HOME", "AGENTRY_CONFIG_DIR's default is under it (empty: $HOME/.config)",
           &Settings::xdg_config_home),
      text("HOME", "the user's home, where the XDG defaults are", &Settings::user_home),
      Spec{"AGENTRY_LOG_LEVEL", "debug, info, warn or error",
           [](Settings& s, std::string_view value) -> Result<void> {
             const std::string level = trim(value);
             if (level != "debug" && level != "info" && level != "warn" && level != "error")
               return bad_value("AGENTRY_LOG_LEVEL", value, "one of debug, info, warn, error");
             s.log_level = level;
             return ok();
           },
           [](const Settings& s) { return s.log_level; }},
      millis("AGENTRY_HTTP_READ_TIMEOUT_MS", "time a client has to send one request", &Settings::http_read_timeout, 1),
      millis("AGENTRY_HTTP_IDLE_TIMEOUT_MS", "how long a kept-alive connection may wait", &Settings::http_idle_timeout, 1),
      millis("AGENTRY_HTTP_WRITE_TIMEOUT_MS", "how long one write to a client may stall",
             &Settings::http_write_timeout, 1),
      millis("AGENTRY_SSE_HEARTBEAT_MS", "how often an idle event stream sends a heartbeat", &Settings::sse_heartbeat, 1),
      whole("AGENTRY_HTTP_MAX_CONNECTIONS", "connections served at once", &Settings::http_max_connections, 8, 1000000),
      checked_list("AGENTRY_ALLOWED_ORIGINS", "other origins whose pages may use the API", &Settings::allowed_origins,
                   allowed_origin, "comma-separated origins scheme://host[:port], e.g. http://localhost:5173"),
      checked_list("AGENTRY_ALLOWED_HOSTS", "other host names the daemon answers to", &Settings::allowed_hosts,
                   host_name_of, "comma-separated host names, e.g. agentry.internal"),
      Spec{"AGENTRY_DAEMON_AUTH_ENABLED", "every API route needs the bearer token",
           [](Settings& s, std::string_view value) -> Result<void> {
             auto flag = parse_flag(value);
             if (!flag) return bad_value("AGENTRY_DAEMON_AUTH_ENABLED", value, "true, false, 1, 0, yes, no, on or off");
             s.auth_enabled = *flag;
             return ok();
           },
           [](const Settings& s) { return std::string(s.auth_enabled ? "true" : "false"); }},
      Spec{"AGENTRY_DAEMON_TOKEN", "the bearer token (never shown)",
           [](Settings& s, std::string_view value) -> Result<void> {
             s.daemon_token = trim(value);
             return ok();
           },
           [](const Settings& s) { return std::string(s.daemon_token.empty() ? "" : "(set)"); }},
      whole("AGENTRY_MAX_CALL_DEPTH", "how many runs may nest through parentRunId", &Settings::max_call_depth, 1, 1000),
      whole("AGENTRY_STREAM_MEMORY_BYTES",
            "bytes live runs' unwritten events and the live timeline windows may hold together",
            &Settings::stream_memory_bytes, std::int64_t{1} << 20, std::int64_t{1} << 40),
      whole("AGENTRY_MIN_RECURRENCE_INTERVAL_SEC", "the shortest gap of a recurring schedule",
            &Settings::min_recurrence_interval_sec, 1, 366LL * 86400),
      millis("AGENTRY_INTERRUPT_GRACE_MS", "how long a backend has to stop after an interrupt",
             &Settings::interrupt_grace, 1),
      millis("AGENTRY_DAEMON_LOCK_WAIT_MS", "how long serve waits for a previous daemon to stop",
             &Settings::daemon_lock_wait, 0),
      list("AGENTRY_PROJECT_ENV_ALLOW", "variables an untrusted project's definitions may read",
           &Settings::project_env_allow),
      whole("AGENTRY_CHILD_RESUME_LIMIT", "child-completion resumes of a parent per window",
            &Settings::child_resume_limit, 1, 10000),
      whole("AGENTRY_CHILD_RESUME_WINDOW_SEC", "the window of that limit", &Settings::child_resume_window_sec, 1, 86400),
      whole("AGENTRY_MAX_LIVE_CHILDREN", "children a run may have that have not ended", &Settings::max_live_children, 1,
            100000),
      whole("AGENTRY_BLOCKING_THREADS", "threads for hooks, git and other work that waits",
            &Settings::blocking_threads, 1, 1024),
      text("AGENTRY_NODE", "the node program that runs JavaScript module hooks (a path, or a name looked up in PATH)",
           &Settings::node),
      whole("AGENTRY_MODULE_HOOK_TIMEOUT_SEC", "how long one call of a JavaScript module hook may take",
            &Settings::module_hook_timeout_sec, 1, 120),
      millis("AGENTRY_NOTIFY_POLL_MS", "how often notifications due are looked for", &Settings::notify_poll, 1),
      Spec{"AGENTRY_NOTIFY_BACKOFF_MS", "the waits before a notification's second and third attempts",
           [](Settings& s, std::string_view value) -> Result<void> {
             std::vector<std::chrono::milliseconds> waits;
             for (const auto& item : split_list(value)) {
               auto n = whole_number(item);
               if (!n || *n < 0 || *n > 24LL * 3600 * 1000)
                 return bad_value("AGENTRY_NOTIFY_BACKOFF_MS", value,
                                  "comma-separated whole numbers of milliseconds, e.g. 1000,5000");
               waits.emplace_back(*n);
             }
             if (waits.empty())
               return bad_value("AGENTRY_NOTIFY_BACKOFF_MS", value,
                                "comma-separated whole numbers of milliseconds, e.g. 1000,5000");
             s.notify_backoff = std::move(waits);
             return ok();
           },
           [](const Settings& s) {
             std::vector<std::string> items;
             for (auto w : s.notify_backoff) items.push_back(std::to_string(w.count()));
             return join(items);
           }},
      millis("AGENTRY_NOTIFY_TIMEOUT_MS", "one webhook request, or how long a notify command may run",
             &Settings::notify_timeout, 1),
      millis("AGENTRY_FOREIGN_CHANGE_INTERVAL_MS", "how often other processes' commits are looked for",
             &Settings::foreign_change_interval, 1),
      millis("AGENTRY_RECONCILE_INTERVAL_MS", "how often runs another process left running are looked at",
             &Settings::reconcile_interval, 1),
  };
  return table;
}

}  // namespace

std::string_view to_string(SettingOrigin origin) {
  switch (origin) {
    case SettingOrigin::built_in: return "default";
    case SettingOrigin::environment: return "environment";
    case SettingOrigin::flag: return "flag";
  }
  return "";
}

Result<Settings> parse_settings(const SettingLookup& env, const std::vector<std::pair<std::string, std::string>>& flags) {
  Settings settings;
  for (const auto& spec : specs()) {
    std::optional<std::string> given;
    SettingOrigin origin = SettingOrigin::built_in;
    if (auto v = env(spec.name); v && !v->empty()) {
      given = *v;
      origin = SettingOrigin::environment;
    }
    for (const auto& [name, value] : flags)
      if (name == spec.name) {
        given = value;
        origin = SettingOrigin::flag;
      }
    if (given)
      if (auto applied = spec.apply(settings, *given); !applied) return applied.failure();
    std::string shown = spec.show(settings);
    settings.entries.push_back({spec.name, std::move(shown), origin, spec.meaning});
  }
  return settings;
}

SettingLookup process_settings_env() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
}

}  // namespace agentry::core
