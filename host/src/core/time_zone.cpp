#include "core/time_zone.hpp"

#include <date/date.h>
#include <date/tz.h>

#include <chrono>
#include <exception>

namespace agentry::core {
namespace {
using std::chrono::seconds;

date::local_seconds local_of(std::int64_t s) { return date::local_seconds{seconds{s}}; }

}  // namespace

Result<TimeZone> TimeZone::locate(std::string_view name) {
  if (name.empty() || name.size() > 64)
    return fail(ErrorCode::invalid_request, "timezone must be an IANA zone name such as 'UTC' or 'Europe/Berlin'",
                {{"field", "timezone"}});
  try {
    const date::time_zone* zone = date::locate_zone(std::string(name));
    return TimeZone(zone, std::string(name));
  } catch (const std::exception&) {
    return fail(ErrorCode::invalid_request,
                "unknown timezone '" + std::string(name) +
                    "': use an IANA zone name such as 'UTC', 'America/New_York' or 'Europe/Berlin'",
                {{"field", "timezone"}});
  }
}

TimeZone::LocalTime TimeZone::to_local(std::int64_t unix_seconds) const {
  const date::sys_seconds instant{seconds{unix_seconds}};
  const auto local = zone_->to_local(instant);
  const auto day = date::floor<date::days>(local);
  const date::year_month_day ymd{day};
  const date::hh_mm_ss<seconds> tod{local - day};
  return LocalTime{static_cast<int>(ymd.year()),
                   static_cast<unsigned>(ymd.month()),
                   static_cast<unsigned>(ymd.day()),
                   static_cast<unsigned>(tod.hours().count()),
                   static_cast<unsigned>(tod.minutes().count()),
                   static_cast<unsigned>(tod.seconds().count()),
                   date::weekday{day}.c_encoding()};
}

std::int64_t TimeZone::to_instant(std::int64_t local_seconds) const {
  const auto local = local_of(local_seconds);
  const auto info = zone_->get_info(local);
  switch (info.result) {
    case date::local_info::unique:
    case date::local_info::ambiguous:
      // The first of the two when ambiguous: the offset in force before the change.
      return (local - info.first.offset).time_since_epoch().count();
    case date::local_info::nonexistent:
      // The gap ends where the second period begins.
      return info.second.begin.time_since_epoch().count();
  }
  return (local - info.first.offset).time_since_epoch().count();
}

std::optional<std::int64_t> next_occurrence(const CronExpr& expr, const TimeZone& zone,
                                            std::int64_t after_unix_seconds) {
  // Walk the wall clock forward from the minute `after` shows, day by day, and take
  // the first matching minute whose instant lies after `after`. Matching minutes that
  // map at or before `after` (the repeated hour, collapsed gaps) are passed over.
  const auto start = zone.to_local(after_unix_seconds);
  date::local_days day = date::local_days{date::year{start.year} / date::month{start.month} / date::day{start.day}};
  const std::int64_t start_minute_local =
      std::int64_t{day.time_since_epoch().count()} * 86400 + start.hour * 3600 + start.minute * 60;
  constexpr int horizon_days = 366 * 10;
  for (int i = 0; i < horizon_days; ++i, day += date::days{1}) {
    const date::year_month_day ymd{day};
    if (!expr.matches_day(static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                          date::weekday{day}.c_encoding()))
      continue;
    const std::int64_t day_local = std::int64_t{day.time_since_epoch().count()} * 86400;
    for (unsigned h = 0; h < 24; ++h) {
      if (!expr.hours.test(h)) continue;
      if (day_local + h * 3600 + 3599 <= start_minute_local) continue;
      for (unsigned m = 0; m < 60; ++m) {
        if (!expr.minutes.test(m)) continue;
        const std::int64_t local = day_local + h * 3600 + m * 60;
        if (local <= start_minute_local) continue;
        const std::int64_t instant = zone.to_instant(local);
        if (instant > after_unix_seconds) return instant;
      }
    }
  }
  return std::nullopt;
}

std::optional<ShortInterval> find_short_interval(const CronExpr& expr, const TimeZone& zone,
                                                 std::int64_t after_unix_seconds, std::int64_t min_seconds,
                                                 std::int64_t horizon_seconds) {
  auto previous = next_occurrence(expr, zone, after_unix_seconds);
  const std::int64_t end = after_unix_seconds + horizon_seconds;
  for (int i = 0; previous && *previous <= end && i < 100000; ++i) {
    auto next = next_occurrence(expr, zone, *previous);
    if (!next) break;
    if (*next - *previous < min_seconds) return ShortInterval{*previous, *next - *previous};
    previous = next;
  }
  return std::nullopt;
}

}  // namespace agentry::core
