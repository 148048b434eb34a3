#include "core/settings.hpp"

#include <gtest/gtest.h>

#include <map>

namespace agentry::core {
namespace {

SettingLookup env_of(std::map<std::string, std::string> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
    auto it = values.find(std::string(name));
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

const Settings::Entry& entry(const Settings& s, std::string_view name) {
  for (const auto& e : s.entries)
    if (e.name == name) return e;
  throw std::runtime_error("no entry " + std::string(name));
}

TEST(Settings, DefaultsAreTheDocumentedOnes) {
  auto s = parse_settings(env_of({}));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->http_max_connections, 512);
  EXPECT_EQ(s->http_read_timeout, std::chrono::milliseconds(30000));
  EXPECT_EQ(s->max_call_depth, 8);
  EXPECT_EQ(s->notify_backoff.size(), 2u);
  EXPECT_EQ(s->blocking_threads, 16);
  EXPECT_EQ(s->node, "node");
  EXPECT_EQ(s->module_hook_timeout_sec, 120);
  EXPECT_EQ(entry(*s, "AGENTRY_HTTP_MAX_CONNECTIONS").origin, SettingOrigin::built_in);
  EXPECT_EQ(entry(*s, "AGENTRY_HTTP_MAX_CONNECTIONS").value, "512");
}

TEST(Settings, ValuesComeFromTheEnvironmentAndFlagsWin) {
  auto s = parse_settings(env_of({{"AGENTRY_HTTP_MAX_CONNECTIONS", " 64 "},
                                  {"AGENTRY_PROJECT_ENV_ALLOW", "A, B,,C"},
                                  {"AGENTRY_NOTIFY_BACKOFF_MS", "10,20,30"},
                                  {"AGENTRY_LISTEN", "ws://127.0.0.1:1/"},
                                  {"AGENTRY_DAEMON_AUTH_ENABLED", "On"},
                                  {"AGENTRY_DAEMON_TOKEN", "secret-token"},
                                  {"AGENTRY_CALL_TIMEOUT_MS", "2500"}}),
                          {{"AGENTRY_LISTEN", "ws://127.0.0.1:0/"}});
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->http_max_connections, 64);
  EXPECT_EQ(s->project_env_allow, (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(s->notify_backoff.back(), std::chrono::milliseconds(30));
  EXPECT_EQ(s->listen, "ws://127.0.0.1:0/");
  EXPECT_EQ(s->call_timeout, std::chrono::milliseconds(2500));
  EXPECT_EQ(s->connect_timeout, std::chrono::milliseconds(10000));
  EXPECT_EQ(entry(*s, "AGENTRY_LISTEN").origin, SettingOrigin::flag);
  EXPECT_EQ(entry(*s, "AGENTRY_HTTP_MAX_CONNECTIONS").origin, SettingOrigin::environment);
  EXPECT_TRUE(s->auth_enabled);
  EXPECT_EQ(entry(*s, "AGENTRY_DAEMON_TOKEN").value, "(set)") << "a secret is never shown";
  for (const auto& e : s->entries) EXPECT_EQ(e.value.find("secret-token"), std::string::npos) << e.name;
}

TEST(Settings, ABadValueNamesTheVariableTheValueAndWhatIsAllowed) {
  for (auto [name, value, allowed] :
       {std::tuple{"AGENTRY_HTTP_MAX_CONNECTIONS", "abc", "a whole number from 8"},
        std::tuple{"AGENTRY_HTTP_MAX_CONNECTIONS", "4", "a whole number from 8"},
        std::tuple{"AGENTRY_HTTP_READ_TIMEOUT_MS", "-5", "milliseconds from 1"},
        std::tuple{"AGENTRY_SSE_HEARTBEAT_MS", "10s", "milliseconds"},
        std::tuple{"AGENTRY_MAX_CALL_DEPTH", "0", "from 1 to 1000"},
        std::tuple{"AGENTRY_BLOCKING_THREADS", "0", "from 1 to 1024"},
        std::tuple{"AGENTRY_MODULE_HOOK_TIMEOUT_SEC", "121", "from 1 to 120"},
        std::tuple{"AGENTRY_CONNECT_TIMEOUT_MS", "soon", "milliseconds"},
        std::tuple{"AGENTRY_CALL_TIMEOUT_MS", "0", "milliseconds from 1"},
        std::tuple{"AGENTRY_LOG_LEVEL", "loud", "debug, info, warn, error"},
        std::tuple{"AGENTRY_DAEMON_AUTH_ENABLED", "maybe", "true, false"},
        std::tuple{"AGENTRY_NOTIFY_BACKOFF_MS", "1000,soon", "comma-separated"},
        std::tuple{"AGENTRY_CHILD_RESUME_LIMIT", "1e3", "a whole number"},
        std::tuple{"AGENTRY_ALLOWED_HOSTS", "box.lan, a/b", "comma-separated host names"},
        std::tuple{"AGENTRY_ALLOWED_HOSTS", "box.lan:99999", "'box.lan:99999' is not one"},
        std::tuple{"AGENTRY_ALLOWED_ORIGINS", "*", "scheme://host[:port]"},
        std::tuple{"AGENTRY_ALLOWED_ORIGINS", "http://localhost:5173/app", "'http://localhost:5173/app' is not one"},
        std::tuple{"AGENTRY_ALLOWED_ORIGINS", "localhost:5173", "e.g. http://localhost:5173"}}) {
    auto s = parse_settings(env_of({{name, value}}));
    ASSERT_FALSE(s.ok()) << name << "=" << value;
    EXPECT_EQ(s.error().code, ErrorCode::validation);
    const std::string& message = s.error().message;
    EXPECT_NE(message.find(name), std::string::npos) << message;
    EXPECT_NE(message.find(std::string("'") + value + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(allowed), std::string::npos) << message;
    EXPECT_EQ(s.error().details.at("variable"), name);
  }
}

TEST(Settings, AllowedHostsAndOriginsAreKeptAsTheBrowserGuardComparesThem) {
  auto s = parse_settings(env_of({{"AGENTRY_ALLOWED_HOSTS", " Box.LAN:4773, other.,,[::1]:80"},
                                  {"AGENTRY_ALLOWED_ORIGINS", "HTTP://LocalHost:5173, https://x.dev:443"}}));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->allowed_hosts, (std::vector<std::string>{"box.lan", "other", "::1"}));
  EXPECT_EQ(s->allowed_origins, (std::vector<std::string>{"http://localhost:5173", "https://x.dev"}));
  EXPECT_EQ(entry(*s, "AGENTRY_ALLOWED_HOSTS").value, "box.lan,other,::1");
  EXPECT_EQ(entry(*s, "AGENTRY_ALLOWED_HOSTS").origin, SettingOrigin::environment);
  EXPECT_EQ(entry(*s, "AGENTRY_ALLOWED_ORIGINS").value, "http://localhost:5173,https://x.dev");
  auto none = parse_settings(env_of({}));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->allowed_hosts.empty());
  EXPECT_EQ(entry(*none, "AGENTRY_ALLOWED_ORIGINS").origin, SettingOrigin::built_in);
}

TEST(Settings, TheDaemonTokenIsKeptTrimmedButOnlyShownAsSet) {
  auto s = parse_settings(env_of({{"AGENTRY_DAEMON_TOKEN", "  tok-123\n"}}));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->daemon_token, "tok-123");
  EXPECT_FALSE(s->auth_enabled);
  EXPECT_EQ(entry(*s, "AGENTRY_DAEMON_TOKEN").value, "(set)");
  auto blank = parse_settings(env_of({{"AGENTRY_DAEMON_TOKEN", "   "}}));
  ASSERT_TRUE(blank.ok());
  EXPECT_EQ(blank->daemon_token, "");
  EXPECT_EQ(entry(*blank, "AGENTRY_DAEMON_TOKEN").value, "") << "blank is no token";
}

TEST(Settings, TheDirectoriesAndWhatTheirDefaultsComeFromAreRead) {
  auto s = parse_settings(env_of({{"AGENTRY_PLUGIN_PATH", "/a:/b"},
                                  {"AGENTRY_WEB_DIR", "/srv/web"},
                                  {"XDG_STATE_HOME", "/x/state"},
                                  {"XDG_CONFIG_HOME", "/x/config"},
                                  {"HOME", "/home/u"}}));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->plugin_path, "/a:/b");
  EXPECT_EQ(s->web_dir, "/srv/web");
  EXPECT_EQ(s->xdg_state_home, "/x/state");
  EXPECT_EQ(s->xdg_config_home, "/x/config");
  EXPECT_EQ(s->user_home, "/home/u");
  EXPECT_EQ(entry(*s, "XDG_STATE_HOME").origin, SettingOrigin::environment);
  EXPECT_EQ(entry(*s, "HOME").value, "/home/u");
  EXPECT_TRUE(s->home.empty()) << "AGENTRY_HOME unset: cli/paths.hpp works the default out";
}

TEST(Settings, AnEmptyVariableCountsAsUnset) {
  auto s = parse_settings(env_of({{"AGENTRY_HTTP_MAX_CONNECTIONS", ""}}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->http_max_connections, 512);
}

}  // namespace
}  // namespace agentry::core
