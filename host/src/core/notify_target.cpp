#include "core/notify_target.hpp"

#include "core/json_strings.hpp"

#include <boost/json/object.hpp>

#include <algorithm>
#include <cctype>

namespace agentry::core {
namespace json = boost::json;

namespace {

constexpr std::size_t max_url_length = 2048;
constexpr std::size_t max_command_args = 64;
constexpr std::size_t max_arg_length = 4096;

bool known_event(std::string_view e) { return e == notify_event_finished || e == notify_event_needs_user; }

bool valid_env_name(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  if (std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
}

std::string kind_of(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "a boolean";
    case json::kind::string: return "a string";
    case json::kind::array: return "a list";
    case json::kind::object: return "a map";
    default: return "a number";
  }
}

std::string item_field(const std::string& field, std::size_t i) { return field + "[" + std::to_string(i) + "]"; }

}  // namespace

bool NotifyTarget::wants(std::string_view event) const {
  return std::find(events.begin(), events.end(), event) != events.end();
}

json::object to_json(const NotifyTarget& t, bool redact_secret) {
  json::object o;
  if (t.kind == NotifyTarget::Kind::webhook) {
    o["webhook"] = t.url;
    if (!t.secret.empty()) o["secret"] = redact_secret ? std::string("<redacted>") : t.secret;
    if (!t.secret_env.empty()) o["secretEnv"] = t.secret_env;
  } else {
    o["command"] = to_json_strings(t.command);
  }
  o["events"] = to_json_strings(t.events);
  o["origin"] = t.origin;
  return o;
}

std::optional<NotifyTarget> notify_target_from_json(const json::value& value) {
  if (!value.is_object()) return std::nullopt;
  const auto& o = value.as_object();
  NotifyTarget t;
  if (auto* w = o.if_contains("webhook"); w && w->is_string()) {
    t.kind = NotifyTarget::Kind::webhook;
    t.url = w->as_string();
    if (auto* s = o.if_contains("secretEnv"); s && s->is_string()) t.secret_env = s->as_string();
    if (auto* s = o.if_contains("secret"); s && s->is_string()) t.secret = s->as_string();
  } else if (auto* c = o.if_contains("command"); c && c->is_array()) {
    t.kind = NotifyTarget::Kind::command;
    t.command = strings_in(c);
    if (t.command.empty()) return std::nullopt;
  } else {
    return std::nullopt;
  }
  t.events = strings_in(o.if_contains("events"));
  if (auto* origin = o.if_contains("origin"); origin && origin->is_string()) t.origin = origin->as_string();
  return t;
}

json::array to_json(const std::vector<NotifyTarget>& targets, bool redact_secret) {
  json::array out;
  for (const auto& t : targets) out.push_back(to_json(t, redact_secret));
  return out;
}

std::vector<NotifyTarget> notify_targets_from_json(const json::value& value) {
  std::vector<NotifyTarget> out;
  if (!value.is_array()) return out;
  for (const auto& item : value.as_array())
    if (auto t = notify_target_from_json(item)) out.push_back(std::move(*t));
  return out;
}

std::string redacted_target(const NotifyTarget& t) {
  if (t.kind == NotifyTarget::Kind::command) {
    if (t.command.empty()) return "command";
    const auto& program = t.command.front();
    auto slash = program.find_last_of('/');
    return "command:" + (slash == std::string::npos ? program : program.substr(slash + 1));
  }
  if (auto url = parse_http_url(t.url)) return url->redacted;
  return "webhook";
}

std::optional<HttpUrl> parse_http_url(std::string_view url, std::string* why) {
  auto reject = [&](std::string message) -> std::optional<HttpUrl> {
    if (why) *why = std::move(message);
    return std::nullopt;
  };
  if (url.size() > max_url_length) return reject("is longer than " + std::to_string(max_url_length) + " characters");
  for (char ch : url)
    if (static_cast<unsigned char>(ch) <= 0x20 || ch == 0x7f) return reject("contains spaces or control characters");
  HttpUrl out;
  std::string_view rest;
  std::string scheme;
  if (url.rfind("https://", 0) == 0) {
    out.tls = true;
    scheme = "https";
    rest = url.substr(8);
  } else if (url.rfind("http://", 0) == 0) {
    scheme = "http";
    rest = url.substr(7);
  } else {
    return reject("must start with http:// or https://");
  }
  auto authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view tail = authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);
  if (auto at = authority.rfind('@'); at != std::string_view::npos) authority = authority.substr(at + 1);
  std::string_view host_port = authority;
  std::string_view host;
  std::string_view port;
  if (!host_port.empty() && host_port.front() == '[') {
    auto close = host_port.find(']');
    if (close == std::string_view::npos) return reject("has an unclosed IPv6 address");
    host = host_port.substr(1, close - 1);
    auto after = host_port.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return reject("has characters after the IPv6 address");
      port = after.substr(1);
    }
  } else {
    auto colon = host_port.rfind(':');
    host = host_port.substr(0, colon);
    if (colon != std::string_view::npos) port = host_port.substr(colon + 1);
  }
  if (host.empty()) return reject("has no host");
  if (!port.empty()) {
    if (port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      return reject("has a port that is not a number");
    if (auto n = std::stoi(std::string(port)); n < 1 || n > 65535) return reject("has a port outside 1-65535");
  }
  out.host = std::string(host);
  out.port = port.empty() ? (out.tls ? "443" : "80") : std::string(port);
  auto fragment = tail.find('#');
  std::string_view target = tail.substr(0, fragment);
  out.target = target.empty() || target.front() != '/' ? "/" + std::string(target) : std::string(target);
  std::string_view path = target.substr(0, target.find('?'));
  std::string shown_host = host_port.front() == '[' ? "[" + out.host + "]" : out.host;
  out.redacted = scheme + "://" + shown_host + (port.empty() ? "" : ":" + std::string(port)) +
                 (path.empty() ? std::string("/") : std::string(path));
  return out;
}

std::vector<NotifyTarget> parse_notify_targets(const json::value& list, const std::string& field, std::string origin,
                                               bool allow_commands, const NotifyProblem& problem) {
  std::vector<NotifyTarget> out;
  if (list.is_null()) return out;
  if (!list.is_array()) {
    problem(field, "must be a list of targets like [{webhook: https://..., events: [run.finished]}], not " +
                       kind_of(list));
    return out;
  }
  const auto& items = list.as_array();
  if (items.size() > max_notify_targets)
    problem(field, "has " + std::to_string(items.size()) + " targets; at most " + std::to_string(max_notify_targets) +
                       " are allowed");
  for (std::size_t i = 0; i < items.size() && i < max_notify_targets; ++i) {
    const std::string f = item_field(field, i);
    if (!items[i].is_object()) {
      problem(f, "must be a map with `webhook: <url>` or `command: [program, args...]`, not " + kind_of(items[i]));
      continue;
    }
    const auto& o = items[i].as_object();
    bool ok = true;
    auto bad = [&](const std::string& where, const std::string& message) {
      problem(where, message);
      ok = false;
    };
    for (const auto& [key, value] : o) {
      (void)value;
      if (key != "webhook" && key != "command" && key != "events" && key != "secret" && key != "secretEnv")
        bad(f + "." + std::string(key),
            "is not a notify field; a target has webhook or command, events and (webhooks) secret or secretEnv");
    }
    NotifyTarget t;
    t.origin = origin;
    const json::value* webhook = o.if_contains("webhook");
    const json::value* command = o.if_contains("command");
    if (webhook && command) {
      bad(f, "has both webhook and command; write one target for each");
    } else if (!webhook && !command) {
      bad(f, "needs `webhook: <http(s) url>` or `command: [program, args...]`");
    } else if (webhook) {
      t.kind = NotifyTarget::Kind::webhook;
      if (!webhook->is_string()) {
        bad(f + ".webhook", "must be an http:// or https:// URL, not " + kind_of(*webhook));
      } else {
        std::string why;
        t.url = webhook->as_string();
        if (!parse_http_url(t.url, &why)) bad(f + ".webhook", "'" + t.url.substr(0, 200) + "' " + why);
      }
    } else {
      t.kind = NotifyTarget::Kind::command;
      if (!allow_commands) {
        bad(f + ".command",
            "is not allowed here: a command target runs a program on the daemon's machine, so only agent and "
            "assignment files may declare one");
      } else if (!command->is_array() || command->as_array().empty()) {
        bad(f + ".command", "must be a non-empty list: [program, args...] (it is run without a shell)");
      } else if (command->as_array().size() > max_command_args) {
        bad(f + ".command", "has more than " + std::to_string(max_command_args) + " arguments");
      } else {
        const auto& argv = command->as_array();
        for (std::size_t a = 0; a < argv.size(); ++a) {
          const std::string af = f + ".command[" + std::to_string(a) + "]";
          if (!argv[a].is_string()) {
            bad(af, "must be a string, not " + kind_of(argv[a]));
            continue;
          }
          const auto& s = argv[a].as_string();
          if ((a == 0 && s.empty()) || s.size() > max_arg_length || s.find('\0') != json::string::npos)
            bad(af, a == 0 ? "must name a program" : "must be at most " + std::to_string(max_arg_length) +
                                                         " characters without NUL");
          else
            t.command.emplace_back(s);
        }
      }
    }
    const json::value* secret = o.if_contains("secret");
    const json::value* secret_env = o.if_contains("secretEnv");
    if ((secret || secret_env) && t.kind == NotifyTarget::Kind::command && command) {
      bad(f + (secret ? ".secret" : ".secretEnv"), "applies to webhooks only (a command gets no signature)");
    } else if (secret && secret_env) {
      bad(f, "has both secret and secretEnv; write one");
    } else if (secret_env) {
      if (!secret_env->is_string() || !valid_env_name(secret_env->as_string()))
        bad(f + ".secretEnv", "must be the name of an environment variable (letters, digits, _), e.g. HOOK_SECRET");
      else
        t.secret_env = secret_env->as_string();
    } else if (secret) {
      if (!secret->is_string() || secret->as_string().empty() || secret->as_string().size() > 1024)
        bad(f + ".secret",
            "must be a non-empty string of at most 1024 characters (in a file, write ${ENV_VAR}: it is filled in "
            "when the file loads; or use secretEnv: NAME to read it when delivering)");
      else
        t.secret = secret->as_string();
    }
    if (const json::value* events = o.if_contains("events")) {
      if (!events->is_array() || events->as_array().empty()) {
        bad(f + ".events", "must be a non-empty list of run.finished and/or run.needs_user");
      } else {
        const auto& list_events = events->as_array();
        for (std::size_t e = 0; e < list_events.size(); ++e) {
          const std::string ef = f + ".events[" + std::to_string(e) + "]";
          if (!list_events[e].is_string() || !known_event(list_events[e].as_string())) {
            bad(ef, "must be run.finished or run.needs_user");
            continue;
          }
          std::string name(list_events[e].as_string());
          if (t.wants(name))
            bad(ef, "repeats " + name);
          else
            t.events.push_back(std::move(name));
        }
      }
    } else {
      t.events = {std::string(notify_event_finished), std::string(notify_event_needs_user)};
    }
    if (ok) out.push_back(std::move(t));
  }
  return out;
}

}  // namespace agentry::core
