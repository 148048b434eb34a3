#pragma once
// Completion notifications: where a run tells someone that it ended or that it needs
// the user. A target is a webhook (an HTTP(S) POST of the event's JSON, optionally
// signed with HMAC-SHA256) or a local command (the event's JSON on its stdin).
// Targets come from the agent's and the assignment's `notify:` lists and from the
// init/start request, and are frozen with the run.
//
// This file holds the values, their one validator (shared by the definition files and
// the API, so both report the same problems with the same field names), and the URL
// rules. Delivery lives in notify/.

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::core {

inline constexpr std::string_view notify_event_finished = "run.finished";
inline constexpr std::string_view notify_event_needs_user = "run.needs_user";

/// At most this many targets per list (agent, assignment, request).
inline constexpr std::size_t max_notify_targets = 8;

struct NotifyTarget {
  enum class Kind { webhook, command };
  Kind kind = Kind::webhook;
  std::string url;                   // webhook: http:// or https://
  /// webhook: the HMAC-SHA256 key, as written (in a definition usually `${ENV_VAR}`, filled
  /// in when the file loads). Stored with the run, never shown: views show redacted_target().
  std::string secret;
  std::string secret_env;            // webhook: or the daemon's environment variable holding it, read at delivery
  std::vector<std::string> command;  // command: argv, run without a shell
  std::vector<std::string> events;   // which events it wants (never empty after validation)
  std::string origin;                // "agent", "assignment" or "run": where it was declared

  bool wants(std::string_view event) const;
};

/// What the run stores (frozen_json) and the delivery worker reads: every field, the
/// secret included. Never put this in a view; `redact_secret` replaces it with "<redacted>".
boost::json::object to_json(const NotifyTarget& target, bool redact_secret = false);
std::optional<NotifyTarget> notify_target_from_json(const boost::json::value& value);
boost::json::array to_json(const std::vector<NotifyTarget>& targets, bool redact_secret = false);
std::vector<NotifyTarget> notify_targets_from_json(const boost::json::value& value);

/// What views show: the webhook's URL without user info, query or fragment, or the
/// command's program name. Never a secret.
std::string redacted_target(const NotifyTarget& target);

/// Reports one problem: the dotted field ("notify[1].events[0]") and what is wrong.
using NotifyProblem = std::function<void(const std::string& field, const std::string& message)>;

/// Validates a `notify` list as written (JSON; definitions convert their YAML first).
/// Every problem is reported; the targets that were valid are returned. `field` is the
/// list's own field name ("notify"); `allow_commands` false refuses command targets
/// (the API: a caller must not choose what the daemon runs).
std::vector<NotifyTarget> parse_notify_targets(const boost::json::value& list, const std::string& field,
                                               std::string origin, bool allow_commands,
                                               const NotifyProblem& problem);

struct HttpUrl {
  bool tls = false;
  std::string host;    // without brackets for IPv6 literals
  std::string port;    // explicit or the scheme's default
  std::string target;  // path and query, at least "/"
  std::string redacted;  // scheme://host[:port]/path
};

/// Parses an http:// or https:// URL; nullopt (and `why`) when it is not one agentry sends to.
std::optional<HttpUrl> parse_http_url(std::string_view url, std::string* why = nullptr);

}  // namespace agentry::core
