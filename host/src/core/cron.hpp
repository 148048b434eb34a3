#pragma once
// A five-field cron expression (minute hour day-of-month month day-of-week), parsed
// once and matched against local calendar fields. Grammar, per field: `*`, a number,
// a range `a-b`, a step `*/n` or `a-b/n` or `a/n` (from a to the field's end), and
// comma-separated lists of these; months and weekdays also by three-letter English
// name (JAN, MON; any case); day-of-week 0 and 7 are both Sunday. Macros: @yearly
// (@annually), @monthly, @weekly, @daily (@midnight), @hourly.
//
// As in Vixie cron, when both day-of-month and day-of-week are restricted (neither
// starts with `*`), a day matches if EITHER matches; otherwise both must.
// An expression that can never match (`0 0 30 2 *`) is refused when parsed.

#include "core/result.hpp"

#include <bitset>
#include <string>
#include <string_view>

namespace agentry::core {

struct CronExpr {
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> days_of_month;  // bit 1..31
  std::bitset<13> months;         // bit 1..12
  std::bitset<7> days_of_week;    // bit 0 (Sunday)..6
  bool dom_star = false;          // the field started with `*`
  bool dow_star = false;

  /// The date part: month, day of month (1-31), weekday (0 = Sunday).
  bool matches_day(unsigned month, unsigned day, unsigned weekday) const;
};

/// INVALID_REQUEST naming the field and what is wrong, or the parsed expression.
/// Input is limited to 256 bytes.
Result<CronExpr> parse_cron(std::string_view text);

}  // namespace agentry::core
