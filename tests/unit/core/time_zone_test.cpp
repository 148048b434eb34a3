#include "core/time_zone.hpp"

#include "core/clock.hpp"
#include "core/schedule.hpp"

#include <gtest/gtest.h>

namespace agentry::core {
namespace {

std::int64_t at(const std::string& iso) {
  auto ms = parse_instant_ms(iso);
  EXPECT_TRUE(ms) << iso;
  return ms ? *ms / 1000 : 0;
}

std::string iso(std::optional<std::int64_t> s) { return s ? format_iso8601(*s * 1000) : "none"; }

TimeZone zone(const char* name) {
  auto z = TimeZone::locate(name);
  EXPECT_TRUE(z) << name;
  return *z;
}

std::string next(const char* cron, const char* tz, const std::string& after) {
  auto e = parse_cron(cron);
  EXPECT_TRUE(e) << cron;
  return iso(next_occurrence(*e, zone(tz), at(after)));
}

TEST(TimeZoneTest, LocatesIanaZonesAndRefusesOthers) {
  EXPECT_TRUE(TimeZone::locate("UTC"));
  EXPECT_TRUE(TimeZone::locate("Europe/Berlin"));
  EXPECT_EQ(zone("America/New_York").name(), "America/New_York");
  for (const char* bad : {"", "Mars/Olympus", "EST5EDT/x", "../../etc/passwd", "+01:00"}) {
    auto z = TimeZone::locate(bad);
    ASSERT_FALSE(z) << bad;
    EXPECT_EQ(z.error().code, ErrorCode::invalid_request);
    EXPECT_EQ(z.error().details.at("field"), "timezone");
  }
}

TEST(TimeZoneTest, WallClockOfAnInstant) {
  auto l = zone("America/New_York").to_local(at("2024-07-04T16:30:15Z"));
  EXPECT_EQ(l.year, 2024);
  EXPECT_EQ(l.month, 7u);
  EXPECT_EQ(l.day, 4u);
  EXPECT_EQ(l.hour, 12u);  // EDT, UTC-4
  EXPECT_EQ(l.minute, 30u);
  EXPECT_EQ(l.second, 15u);
  EXPECT_EQ(l.weekday, 4u);  // Thursday
}

TEST(TimeZoneTest, PlainDaysFollowTheZonesOffset) {
  EXPECT_EQ(next("0 9 * * *", "UTC", "2024-06-01T12:00:00Z"), "2024-06-02T09:00:00.000Z");
  EXPECT_EQ(next("0 0 * * *", "Europe/Berlin", "2024-06-01T12:00:00Z"), "2024-06-01T22:00:00.000Z");
  EXPECT_EQ(next("0 9 * * *", "America/New_York", "2024-01-10T15:00:00Z"), "2024-01-11T14:00:00.000Z");
  // The occurrence itself is not "after" itself.
  EXPECT_EQ(next("0 9 * * *", "UTC", "2024-06-02T09:00:00Z"), "2024-06-03T09:00:00.000Z");
  EXPECT_EQ(next("0 9 * * *", "UTC", "2024-06-02T08:59:59Z"), "2024-06-02T09:00:00.000Z");
}

TEST(TimeZoneTest, NewYorkSpringGapFiresOnceAtTheEndOfTheGap) {
  // 2024-03-10: 02:00 EST becomes 03:00 EDT (07:00Z); 02:30 does not exist.
  EXPECT_EQ(next("30 2 * * *", "America/New_York", "2024-03-09T12:00:00Z"), "2024-03-10T07:00:00.000Z");
  EXPECT_EQ(next("30 2 * * *", "America/New_York", "2024-03-10T07:00:00Z"), "2024-03-11T06:30:00.000Z");
  // Four skipped times, one firing.
  EXPECT_EQ(next("*/15 2 * * *", "America/New_York", "2024-03-10T06:59:00Z"), "2024-03-10T07:00:00.000Z");
  EXPECT_EQ(next("*/15 2 * * *", "America/New_York", "2024-03-10T07:00:00Z"), "2024-03-11T06:00:00.000Z");
  // A daily time outside the gap keeps its wall-clock time: 23 hours apart that day.
  EXPECT_EQ(next("0 9 * * *", "America/New_York", "2024-03-09T15:00:00Z"), "2024-03-10T13:00:00.000Z");
  EXPECT_EQ(next("0 9 * * *", "America/New_York", "2024-03-08T15:00:00Z"), "2024-03-09T14:00:00.000Z");
  // Hourly: 01:00 EST, then 03:00 EDT, an hour later.
  EXPECT_EQ(next("0 * * * *", "America/New_York", "2024-03-10T06:00:00Z"), "2024-03-10T07:00:00.000Z");
}

TEST(TimeZoneTest, NewYorkAutumnOverlapFiresOnceAtTheFirstOccurrence) {
  // 2024-11-03: 02:00 EDT becomes 01:00 EST (06:00Z); 01:30 happens at 05:30Z and 06:30Z.
  EXPECT_EQ(next("30 1 * * *", "America/New_York", "2024-11-03T00:00:00Z"), "2024-11-03T05:30:00.000Z");
  EXPECT_EQ(next("30 1 * * *", "America/New_York", "2024-11-03T05:30:00Z"), "2024-11-04T06:30:00.000Z");
  // From inside the repeated hour, the repeat is not fired again.
  EXPECT_EQ(next("30 1 * * *", "America/New_York", "2024-11-03T06:10:00Z"), "2024-11-04T06:30:00.000Z");
  EXPECT_EQ(next("0 * * * *", "America/New_York", "2024-11-03T04:30:00Z"), "2024-11-03T05:00:00.000Z");
  EXPECT_EQ(next("0 * * * *", "America/New_York", "2024-11-03T05:00:00Z"), "2024-11-03T07:00:00.000Z");
  // A daily time outside the overlap: 25 hours apart that day.
  EXPECT_EQ(next("0 9 * * *", "America/New_York", "2024-11-02T14:00:00Z"), "2024-11-03T14:00:00.000Z");
}

TEST(TimeZoneTest, BerlinGapAndOverlap) {
  // 2024-03-31: 02:00 CET becomes 03:00 CEST (01:00Z).
  EXPECT_EQ(next("30 2 * * *", "Europe/Berlin", "2024-03-30T12:00:00Z"), "2024-03-31T01:00:00.000Z");
  EXPECT_EQ(next("30 2 * * *", "Europe/Berlin", "2024-03-31T01:00:00Z"), "2024-04-01T00:30:00.000Z");
  // 2024-10-27: 03:00 CEST becomes 02:00 CET (01:00Z); 02:30 at 00:30Z and 01:30Z.
  EXPECT_EQ(next("30 2 * * *", "Europe/Berlin", "2024-10-26T12:00:00Z"), "2024-10-27T00:30:00.000Z");
  EXPECT_EQ(next("30 2 * * *", "Europe/Berlin", "2024-10-27T00:30:00Z"), "2024-10-28T01:30:00.000Z");
  EXPECT_EQ(next("0 9 * * 1", "Europe/Berlin", "2024-10-26T12:00:00Z"), "2024-10-28T08:00:00.000Z");
}

TEST(TimeZoneTest, ToInstantResolvesGapsAndOverlaps) {
  auto ny = zone("America/New_York");
  auto local = [](const std::string& iso_local) { return at(iso_local); };  // read as if UTC: seconds of wall clock
  EXPECT_EQ(iso(ny.to_instant(local("2024-03-10T02:30:00Z"))), "2024-03-10T07:00:00.000Z");
  EXPECT_EQ(iso(ny.to_instant(local("2024-11-03T01:30:00Z"))), "2024-11-03T05:30:00.000Z");
  EXPECT_EQ(iso(ny.to_instant(local("2024-07-01T12:00:00Z"))), "2024-07-01T16:00:00.000Z");
}

TEST(TimeZoneTest, ChangesOfAZonesRulesComeFromTheDatabase) {
  // Moscow left UTC+4 for UTC+3 on 2014-10-26: noon moved an hour later in UTC.
  EXPECT_EQ(next("0 12 * * *", "Europe/Moscow", "2014-10-25T00:00:00Z"), "2014-10-25T08:00:00.000Z");
  EXPECT_EQ(next("0 12 * * *", "Europe/Moscow", "2014-10-25T08:00:00Z"), "2014-10-26T09:00:00.000Z");
  // Sao Paulo stopped observing DST in 2019: no gap in November since.
  EXPECT_EQ(next("30 0 * * *", "America/Sao_Paulo", "2018-11-03T12:00:00Z"), "2018-11-04T03:00:00.000Z");
  EXPECT_EQ(next("30 0 * * *", "America/Sao_Paulo", "2019-11-02T12:00:00Z"), "2019-11-03T03:30:00.000Z");
}

TEST(TimeZoneTest, RareDaysAreFound) {
  EXPECT_EQ(next("0 0 29 2 *", "UTC", "2024-03-01T00:00:00Z"), "2028-02-29T00:00:00.000Z");
  EXPECT_EQ(next("0 0 29 2 *", "UTC", "2096-03-01T00:00:00Z"), "2104-02-29T00:00:00.000Z");  // 2100 is no leap year
  EXPECT_EQ(next("0 0 13 * FRI", "UTC", "2024-09-14T00:00:00Z"), "2024-09-20T00:00:00.000Z");  // either
}

TEST(TimeZoneTest, ShortIntervalsIncludeDstChanges) {
  auto e = *parse_cron("30 1,3 * * *");
  auto ny = zone("America/New_York");
  // Two hours apart on the wall clock, one hour apart in March (01:30 EST, then 03:30 EDT).
  auto found = find_short_interval(e, ny, at("2024-01-01T00:00:00Z"), 7200, 366 * 86400);
  ASSERT_TRUE(found);
  EXPECT_EQ(iso(found->at), "2024-03-10T06:30:00.000Z");
  EXPECT_EQ(found->gap, 3600);
  EXPECT_FALSE(find_short_interval(e, ny, at("2024-01-01T00:00:00Z"), 3600, 366 * 86400));
  auto every_minute = *parse_cron("* * * * *");
  auto quick = find_short_interval(every_minute, ny, at("2024-01-01T00:00:00Z"), 300, 366 * 86400);
  ASSERT_TRUE(quick);
  EXPECT_EQ(quick->gap, 60);
  EXPECT_FALSE(find_short_interval(*parse_cron("0 9 * * *"), zone("UTC"), at("2024-01-01T00:00:00Z"), 3600,
                                   366 * 86400));
}

}  // namespace
}  // namespace agentry::core
