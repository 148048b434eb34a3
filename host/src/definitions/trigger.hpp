#pragma once
// An inbound trigger: a signed webhook (`POST /api/triggers/<name>`) that starts an
// assignment with vars taken from the delivery's JSON payload. File:
// triggers/<name>.yaml (or .yml), read from the user's config directory only: a
// project's `.agentry/triggers/` is never read (docs/security.md), because a trigger
// opens a door into the daemon that no project file should be able to open.
//
// Payload fields are named by JSON Pointer (RFC 6901: `/issue/number`, `/commits/0/id`).
// The dedup key is a template whose placeholders are `{{<JSON Pointer>}}` or
// `{{header:<Name>}}`; a redelivered event with the same key starts nothing.

#include "core/result.hpp"
#include "definitions/problem.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::definitions {

/// How a delivery proves it comes from someone who holds the secret.
///   agentry: `X-Agentry-Timestamp: <unix seconds>` and
///            `X-Agentry-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`,
///            the timestamp within the replay window of the daemon's clock;
///   github:  `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>` (GitHub's
///            webhooks, which carry no timestamp: redeliveries are caught by dedup).
enum class TriggerScheme { agentry, github };

std::string_view to_string(TriggerScheme scheme);  // "agentry", "github"

/// One var taken from the payload.
struct TriggerVar {
  std::string name;     // the assignment's var
  std::string pointer;  // JSON Pointer into the payload
  bool required = true;
  std::optional<boost::json::value> default_value;  // used when the field is absent or null
};

/// One condition of `filter`: the payload field must equal one of `allowed`.
struct TriggerCondition {
  std::string pointer;
  std::vector<boost::json::value> allowed;
};

struct TriggerDefinition {
  std::string name;
  std::filesystem::path source_path;
  std::string description;
  std::string assignment;            // name; required
  std::string agent;                 // name; required (an assignment names no agent of its own)
  std::optional<std::string> cwd;    // absolute; where the run works (and its project is looked up)
  std::string secret_env;            // the environment variable that holds the HMAC secret
  TriggerScheme scheme = TriggerScheme::agentry;
  int replay_window_seconds = 300;   // agentry scheme
  std::vector<TriggerVar> vars;
  std::vector<TriggerCondition> filter;  // every condition must hold, else the delivery is ignored
  std::string dedup_key;                 // the template as written; empty = the scheme's default
  std::vector<Problem> warnings;
};

/// The dedup key template in force: the trigger's, or the scheme's default
/// (github: `{{header:X-GitHub-Delivery}}`; agentry: `{{header:X-Agentry-Signature}}`,
/// so a replayed request is a duplicate even inside the replay window).
std::string effective_dedup_key(const TriggerDefinition& trigger);

/// Why `payload` does not pass the trigger's filter ("/action is \"closed\", not one of
/// [\"opened\"]"), or nullopt when it passes.
std::optional<std::string> filter_mismatch(const TriggerDefinition& trigger, const boost::json::value& payload);

/// The run's vars from the payload: strings, numbers and booleans as they are, objects and
/// arrays as their JSON text. VALIDATION_FAILED naming the var and its pointer when a
/// required field is absent or null.
core::Result<boost::json::object> map_trigger_vars(const TriggerDefinition& trigger,
                                                   const boost::json::value& payload);

/// The longest dedup key kept; a longer one is refused rather than cut (two events must
/// never share a key by truncation).
inline constexpr std::size_t max_dedup_key_bytes = 512;

/// A request header by name (any case), or nullopt.
using HeaderLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// The dedup key of one delivery. VALIDATION_FAILED naming the placeholder when a field
/// or header it names is missing, or when the key is empty or too long.
core::Result<std::string> render_dedup_key(std::string_view key_template, const boost::json::value& payload,
                                           const HeaderLookup& header);

/// What is wrong with a dedup key template (an unclosed placeholder, one that is neither a
/// JSON Pointer nor `header:<Name>`), or nullopt: checked when the trigger is loaded.
std::optional<std::string> dedup_key_problem(std::string_view key_template);

}  // namespace agentry::definitions
