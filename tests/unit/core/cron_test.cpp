#include "core/cron.hpp"

#include "core/schedule.hpp"
#include "core/time_zone.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace agentry::core {
namespace {

template <std::size_t N>
std::vector<unsigned> bits_of(const std::bitset<N>& b) {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < N; ++i)
    if (b.test(i)) out.push_back(i);
  return out;
}

CronExpr parsed(const std::string& text) {
  auto e = parse_cron(text);
  EXPECT_TRUE(e) << text << ": " << (e ? "" : e.error().message);
  return e ? *e : CronExpr{};
}

TEST(CronTest, StarsListsRangesAndSteps) {
  auto e = parsed("*/15 5,10-20/3 1-31/10 */4 1-5");
  EXPECT_EQ(bits_of(e.minutes), (std::vector<unsigned>{0, 15, 30, 45}));
  EXPECT_EQ(bits_of(e.hours), (std::vector<unsigned>{5, 10, 13, 16, 19}));
  EXPECT_EQ(bits_of(e.days_of_month), (std::vector<unsigned>{1, 11, 21, 31}));
  EXPECT_EQ(bits_of(e.months), (std::vector<unsigned>{1, 5, 9}));
  EXPECT_EQ(bits_of(e.days_of_week), (std::vector<unsigned>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(e.dom_star == false && e.dow_star == false);
  auto all = parsed("* * * * *");
  EXPECT_EQ(all.minutes.count(), 60u);
  EXPECT_EQ(all.hours.count(), 24u);
  EXPECT_EQ(bits_of(all.days_of_month).front(), 1u);
  EXPECT_EQ(all.days_of_month.count(), 31u);
  EXPECT_EQ(all.months.count(), 12u);
  EXPECT_EQ(all.days_of_week.count(), 7u);
  EXPECT_TRUE(all.dom_star && all.dow_star);
  // a/n runs from a to the end of the field.
  EXPECT_EQ(bits_of(parsed("50/5 * * * *").minutes), (std::vector<unsigned>{50, 55}));
}

TEST(CronTest, NamesAndSundayAsSeven) {
  auto e = parsed("0 0 * jan-MAR,Dec Mon-fri");
  EXPECT_EQ(bits_of(e.months), (std::vector<unsigned>{1, 2, 3, 12}));
  EXPECT_EQ(bits_of(e.days_of_week), (std::vector<unsigned>{1, 2, 3, 4, 5}));
  EXPECT_EQ(bits_of(parsed("0 0 * * 7").days_of_week), (std::vector<unsigned>{0}));
  EXPECT_EQ(bits_of(parsed("0 0 * * 5-7").days_of_week), (std::vector<unsigned>{0, 5, 6}));
  EXPECT_EQ(bits_of(parsed("0 0 * * SUN,sat").days_of_week), (std::vector<unsigned>{0, 6}));
}

TEST(CronTest, Macros) {
  auto same = [](const std::string& a, const std::string& b) {
    auto x = parsed(a), y = parsed(b);
    return x.minutes == y.minutes && x.hours == y.hours && x.days_of_month == y.days_of_month &&
           x.months == y.months && x.days_of_week == y.days_of_week && x.dom_star == y.dom_star &&
           x.dow_star == y.dow_star;
  };
  EXPECT_TRUE(same("@yearly", "0 0 1 1 *"));
  EXPECT_TRUE(same("@annually", "0 0 1 1 *"));
  EXPECT_TRUE(same("@monthly", "0 0 1 * *"));
  EXPECT_TRUE(same("@weekly", "0 0 * * 0"));
  EXPECT_TRUE(same("@daily", "0 0 * * *"));
  EXPECT_TRUE(same("@midnight", "0 0 * * *"));
  EXPECT_TRUE(same("@hourly", "0 * * * *"));
  EXPECT_TRUE(same("  0   9 * *  * ", "0 9 * * *"));
}

TEST(CronTest, EverySingleValueOfEveryFieldParsesToThatValueAlone) {
  const char* templates[] = {"%u * * * *", "* %u * * *", "* * %u * *", "* * * %u *", "* * * * %u"};
  const unsigned lo[] = {0, 0, 1, 1, 0}, hi[] = {59, 23, 31, 12, 7};
  for (int f = 0; f < 5; ++f) {
    for (unsigned v = lo[f]; v <= hi[f]; ++v) {
      char buf[64];
      std::snprintf(buf, sizeof buf, templates[f], v);
      auto e = parse_cron(buf);
      ASSERT_TRUE(e) << buf;
      switch (f) {
        case 0: EXPECT_EQ(bits_of(e->minutes), std::vector<unsigned>{v}) << buf; break;
        case 1: EXPECT_EQ(bits_of(e->hours), std::vector<unsigned>{v}) << buf; break;
        case 2: EXPECT_EQ(bits_of(e->days_of_month), std::vector<unsigned>{v}) << buf; break;
        case 3: EXPECT_EQ(bits_of(e->months), std::vector<unsigned>{v}) << buf; break;
        case 4: EXPECT_EQ(bits_of(e->days_of_week), std::vector<unsigned>{v % 7}) << buf; break;
      }
    }
    // One past each end is refused.
    char below[64], above[64];
    std::snprintf(above, sizeof above, templates[f], hi[f] + 1);
    EXPECT_FALSE(parse_cron(above)) << above;
    if (lo[f] > 0) {
      std::snprintf(below, sizeof below, templates[f], lo[f] - 1);
      EXPECT_FALSE(parse_cron(below)) << below;
    }
  }
}

TEST(CronTest, MalformedExpressionsAreRefusedWithTheField) {
  for (const char* bad : {"", "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * 32 * *",
                          "* * * 0 *", "* * * 13 *", "* * * * 8", "5-1 * * * *", "*/0 * * * *", "*/ * * * *",
                          "a * * * *", ", * * * *", "1,,2 * * * *", "1, * * * *", "1-2-3 * * * *", "- * * * *",
                          "1- * * * *", "100 * * * *", "* * * FOO *", "* * * * MONDAY", "@reboot", "@", "*/1x * * * *",
                          "1/2/3 * * * *", "** * * * *", "-1 * * * *", "0 0 30 2 *", "0 0 31 4,6,9,11 *",
                          "0 0 31 FEB *"}) {
    auto e = parse_cron(bad);
    EXPECT_FALSE(e) << "'" << bad << "' was accepted";
    if (!e) {
      EXPECT_EQ(e.error().code, ErrorCode::invalid_request) << bad;
      EXPECT_EQ(e.error().details.at("field"), "cron") << bad;
    }
  }
  EXPECT_FALSE(parse_cron(std::string(300, '*')));
  // A day that exists only in leap years is fine; so is 31 with a weekday (either matches).
  EXPECT_TRUE(parse_cron("0 0 29 2 *"));
  EXPECT_TRUE(parse_cron("0 0 31 2 MON"));
}

TEST(CronTest, DayOfMonthAndWeekdayMatchEitherWhenBothAreRestricted) {
  auto either = parsed("0 0 1 * MON");
  EXPECT_TRUE(either.matches_day(6, 1, 6));   // the 1st, a Saturday
  EXPECT_TRUE(either.matches_day(6, 3, 1));   // a Monday
  EXPECT_FALSE(either.matches_day(6, 4, 2));  // neither
  auto weekday_only = parsed("0 0 * * MON");
  EXPECT_FALSE(weekday_only.matches_day(6, 1, 6));
  EXPECT_TRUE(weekday_only.matches_day(6, 3, 1));
  auto dom_only = parsed("0 0 1 * *");
  EXPECT_TRUE(dom_only.matches_day(6, 1, 6));
  EXPECT_FALSE(dom_only.matches_day(6, 3, 1));
  // A stepped star is still a star, as in Vixie cron.
  auto stepped = parsed("0 0 */2 * MON");
  EXPECT_TRUE(stepped.matches_day(6, 3, 1));   // Monday the 3rd: both match
  EXPECT_FALSE(stepped.matches_day(6, 4, 1));  // Monday the 4th: an even day
  EXPECT_FALSE(stepped.matches_day(6, 5, 3));  // Wednesday the 5th: not a Monday
  EXPECT_FALSE(parsed("0 0 * 6 *").matches_day(7, 1, 1));
}

// In UTC there is no DST: next_occurrence must agree with a minute-by-minute scan.
TEST(CronTest, NextOccurrenceInUtcAgreesWithABruteForceScan) {
  auto utc = *TimeZone::locate("UTC");
  const char* exprs[] = {"* * * * *",      "*/7 * * * *",      "0 * * * *",        "59 23 * * *",
                         "0 9 * * 1-5",    "30 8 1 * *",       "0 0 * * 0",        "15,45 */3 * * *",
                         "0 12 15 * FRI",  "0 0 1 1,7 *",      "5 4 * * SUN",      "0 0 31 * *",
                         "*/20 9-17 * * MON-FRI", "0 6 2-8 * 2", "1 1 1 * *",      "0 0 L * *"};
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::int64_t> start_dist(1700000000, 1800000000);
  for (const char* text : exprs) {
    auto e = parse_cron(text);
    if (std::string(text) == "0 0 L * *") {
      EXPECT_FALSE(e);
      continue;
    }
    ASSERT_TRUE(e) << text;
    for (int trial = 0; trial < 3; ++trial) {
      const std::int64_t after = start_dist(rng);
      auto next = next_occurrence(*e, utc, after);
      ASSERT_TRUE(next) << text;
      // Scan whole minutes after `after`, for at most ~13 months.
      std::int64_t t = (after / 60 + 1) * 60;
      std::optional<std::int64_t> expected;
      for (int i = 0; i < 60 * 24 * 400 && !expected; ++i, t += 60) {
        auto l = utc.to_local(t);
        if (e->minutes.test(l.minute) && e->hours.test(l.hour) && e->matches_day(l.month, l.day, l.weekday))
          expected = t;
      }
      ASSERT_TRUE(expected) << text;
      EXPECT_EQ(*next, *expected) << text << " after " << after;
    }
  }
}

}  // namespace
}  // namespace agentry::core
