// parse_cron() and next_occurrence(): a schedule's cron text comes from API bodies and
// from assignment files. Parsing must answer (an expression or INVALID_REQUEST) for
// any text, and an accepted expression must yield occurrences that are later than
// asked, match the expression on the zone's wall clock (or sit at the end of a DST
// gap), and come in bounded time.

#include "core/cron.hpp"
#include "core/time_zone.hpp"

#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agentry;
  static const core::TimeZone zones[] = {*core::TimeZone::locate("UTC"),
                                         *core::TimeZone::locate("America/New_York"),
                                         *core::TimeZone::locate("Europe/Berlin")};
  const std::string_view text = fuzz::as_text(data, size);
  auto parsed = core::parse_cron(text);
  if (!parsed) {
    FUZZ_CHECK(parsed.error().code == core::ErrorCode::invalid_request, "parse_cron fails only with INVALID_REQUEST");
    FUZZ_CHECK(!parsed.error().message.empty(), "a failure says what is wrong");
    return 0;
  }
  // Around the 2024 spring change in both zones, and the autumn one in New York.
  const std::int64_t starts[] = {1710000000, 1711846800, 1730613600};
  for (const auto& zone : zones) {
    for (std::int64_t start : starts) {
      std::int64_t after = start;
      for (int i = 0; i < 3; ++i) {
        auto next = core::next_occurrence(*parsed, zone, after);
        // Every accepted expression matches some day within ten years.
        FUZZ_CHECK(next.has_value(), "an accepted expression has a next occurrence");
        FUZZ_CHECK(*next > after, "the next occurrence is later than asked");
        FUZZ_CHECK(*next % 60 == 0, "occurrences fall on whole minutes");
        const auto local = zone.to_local(*next);
        const bool matches = parsed->matches_day(local.month, local.day, local.weekday) &&
                             parsed->hours.test(local.hour) && parsed->minutes.test(local.minute);
        // Not matching is allowed only where a skipped wall-clock time fires: at the end of a gap.
        const auto before = zone.to_local(*next - 1);
        const bool gap_end = (before.hour + 1) % 24 != local.hour && before.hour != local.hour;
        FUZZ_CHECK(matches || gap_end, "an occurrence matches the wall clock, or ends a DST gap");
        after = *next;
      }
    }
  }
  return 0;
}
