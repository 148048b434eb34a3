#pragma once
// IANA time zones from the system's tz database (Howard Hinnant's date/tz, reading
// /usr/share/zoneinfo), and the one question schedules ask of them: when, after a
// given instant, does a cron expression next match the zone's wall clock?
//
// Daylight-saving rules (docs/api.md, "Schedules"):
// - a wall-clock time that does not exist (skipped forward, e.g. 02:30 on the spring
//   change in America/New_York) fires at the instant the gap ends (03:00 new time),
//   once, however many skipped times matched;
// - a wall-clock time that occurs twice (the autumn change) fires once, at its first
//   occurrence.

#include "core/cron.hpp"
#include "core/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace date {
class time_zone;
}

namespace agentry::core {

class TimeZone {
 public:
  /// INVALID_REQUEST for a name the tz database does not know ("UTC", "Europe/Berlin").
  static Result<TimeZone> locate(std::string_view name);

  const std::string& name() const { return name_; }

  struct LocalTime {
    int year;
    unsigned month, day, hour, minute, second;
    unsigned weekday;  // 0 = Sunday
  };
  /// The zone's wall clock at `unix_seconds`.
  LocalTime to_local(std::int64_t unix_seconds) const;
  /// The instant a wall-clock time (in seconds since the local epoch) happens: the
  /// first one when it happens twice, the end of the gap when it does not exist.
  std::int64_t to_instant(std::int64_t local_seconds) const;

 private:
  TimeZone(const date::time_zone* zone, std::string name) : zone_(zone), name_(std::move(name)) {}
  const date::time_zone* zone_ = nullptr;
  std::string name_;
};

/// The first instant strictly after `after_unix_seconds` at which `expr` matches the
/// wall clock of `zone` (at second 0 of a matching minute, DST rules above); nullopt
/// when none comes within ten years.
std::optional<std::int64_t> next_occurrence(const CronExpr& expr, const TimeZone& zone,
                                            std::int64_t after_unix_seconds);

/// A gap shorter than `min_seconds` between two consecutive occurrences that fall within
/// `horizon_seconds` after `after_unix_seconds` (DST changes included): the first
/// occurrence of such a pair and the gap, or nullopt when every gap is long enough.
/// Looks at no more than 100,000 occurrences.
struct ShortInterval {
  std::int64_t at;
  std::int64_t gap;
};
std::optional<ShortInterval> find_short_interval(const CronExpr& expr, const TimeZone& zone,
                                                 std::int64_t after_unix_seconds, std::int64_t min_seconds,
                                                 std::int64_t horizon_seconds);

}  // namespace agentry::core
