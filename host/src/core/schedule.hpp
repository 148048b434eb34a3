#pragma once
// A run's schedule: one-time (`at` an absolute instant, or `delay` from when it was
// set) or recurring (`cron` in an IANA `timezone`, with a `mode` saying what each
// occurrence starts, and `continueOnFailure`). The request contract is flat and shared
// by HTTP, WebSocket, the CLI and an assignment's `schedule:` (docs/api.md).

#include "core/result.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::core {

enum class ScheduleKind { once, recurring };
/// What a recurring occurrence starts: a new session of the same run (reuse), the run
/// reset to how it was first started (reset), or a fresh copy of it (clone).
enum class ScheduleMode { reuse, reset, clone };

std::string_view to_string(ScheduleKind kind);
std::string_view to_string(ScheduleMode mode);
std::optional<ScheduleKind> parse_schedule_kind(std::string_view text);
std::optional<ScheduleMode> parse_schedule_mode(std::string_view text);

/// What the user asked for.
struct ScheduleSpec {
  ScheduleKind kind = ScheduleKind::once;
  std::optional<std::int64_t> at_ms;  // once: when
  std::optional<std::string> delay;   // once: as given, when set by delay
  std::string cron;                   // recurring
  std::string timezone = "UTC";
  ScheduleMode mode = ScheduleMode::reuse;
  bool continue_on_failure = false;
};

/// A stored schedule: the spec and what has happened to it.
struct Schedule {
  std::string run_id;
  ScheduleSpec spec;
  bool enabled = true;
  std::optional<std::int64_t> next_ms;  // the next due instant; none once spent
  std::optional<std::string> last_at;   // when the last occurrence came due
  std::string last_outcome;             // "started", "skipped", "missed", or "" before any
  std::string last_reason;              // why it was skipped or missed
  std::optional<std::string> last_run_id;  // the run the last occurrence started
  std::string updated_at;
};

/// The spec's own fields as stored (spec_json) and read back.
boost::json::object spec_to_json(const ScheduleSpec& spec);
Result<ScheduleSpec> spec_from_json(const boost::json::object& json);
/// RunSummary.schedule.
boost::json::object to_json(const Schedule& schedule);

/// The flat request body: exactly one of at, delay, cron; timezone, mode and
/// continueOnFailure only with cron. INVALID_REQUEST naming the field otherwise. The
/// cron expression and timezone are checked here (parsed, located).
Result<ScheduleSpec> parse_schedule_request(const boost::json::object& body, std::int64_t now_ms);

/// "30m", "2h", "1h30m", "45s", "7d": at least one second, at most 366 days.
Result<std::int64_t> parse_delay_ms(std::string_view text);
/// An ISO 8601 instant with a zone designator: "2030-01-02T03:04:05Z",
/// "2030-01-02T03:04:05.250+01:00". A time without a zone is ambiguous and refused.
Result<std::int64_t> parse_instant_ms(std::string_view text);

/// The first due instant after `now_ms` (once: at_ms; recurring: the next cron match),
/// or nullopt for a recurring schedule that never comes due again.
std::optional<std::int64_t> next_due_ms(const ScheduleSpec& spec, std::int64_t now_ms);

}  // namespace agentry::core
