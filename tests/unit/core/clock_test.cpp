#include "core/clock.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace agentry::core {
namespace {

TEST(FormatIso8601, EpochIsMidnightJanuaryFirst1970) {
  EXPECT_EQ(format_iso8601(0), "1970-01-01T00:00:00.000Z");
}

TEST(FormatIso8601, KnownInstantsWithMilliseconds) {
  EXPECT_EQ(format_iso8601(1'700'000'000'123), "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(format_iso8601(951'782'400'000), "2000-02-29T00:00:00.000Z");  // leap day
  EXPECT_EQ(format_iso8601(1), "1970-01-01T00:00:00.001Z");
  EXPECT_EQ(format_iso8601(999), "1970-01-01T00:00:00.999Z");
  EXPECT_EQ(format_iso8601(86'399'999), "1970-01-01T23:59:59.999Z");
}

TEST(FormatIso8601, SortsLexicographicallyInTimeOrder) {
  // Runs are listed by created_at text, so text order must be time order.
  EXPECT_LT(format_iso8601(999), format_iso8601(1000));
  EXPECT_LT(format_iso8601(1'700'000'000'000), format_iso8601(1'700'000'000'001));
  EXPECT_LT(format_iso8601(9'999'999'999), format_iso8601(10'000'000'000));
}

TEST(ParseIso8601, ReadsBackWhatFormatWrote) {
  for (std::int64_t ms : {std::int64_t{0}, std::int64_t{1'700'000'000'123}, std::int64_t{951'782'400'000}})
    EXPECT_EQ(parse_iso8601(format_iso8601(ms)), ms);
  for (const char* bad : {"", "2023-11-14", "2023-11-14T22:13:20Z", "2023-11-14T22:13:20.123+01:00", "nonsense-text-24-chars!!"})
    EXPECT_FALSE(parse_iso8601(bad).has_value()) << bad;
}

TEST(NowIso8601, IsUtcWithMilliseconds) {
  const std::string now = now_iso8601();
  EXPECT_TRUE(std::regex_match(now, std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)"))) << now;
}

TEST(TimeText, HoldsTheDaemonsOwnFormAndAnyIsoFormUpToItsCapacity) {
  const TimeText ours = format_iso8601(1'700'000'000'123);
  EXPECT_EQ(ours, "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(ours.str(), "2023-11-14T22:13:20.123Z");
  const TimeText offset = std::string_view("2023-11-14T22:13:20.123456789+05:30");  // 35 characters
  EXPECT_EQ(offset, "2023-11-14T22:13:20.123456789+05:30");
  EXPECT_TRUE(TimeText().empty());
  EXPECT_FALSE(ours.empty());
  // Text past the capacity is cut there, never written past the object.
  const std::string long_text(100, '7');
  const TimeText cut = long_text;
  EXPECT_EQ(cut.view().size(), TimeText::capacity);
  EXPECT_EQ(cut, long_text.substr(0, TimeText::capacity));
}

TEST(NowTimeText, IsNowIso8601WithoutTheString) {
  const TimeText now = now_time_text();
  EXPECT_TRUE(std::regex_match(now.str(), std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)"))) << now;
  EXPECT_LE(now.view(), std::string_view(now_iso8601()));
}

TEST(NowMs, IsAPlausibleUnixTimeAndNeverGoesBackwardsMuch) {
  const auto a = now_ms();
  const auto b = now_ms();
  EXPECT_GT(a, 1'600'000'000'000);  // after September 2020
  EXPECT_GE(b + 1000, a);
  EXPECT_EQ(format_iso8601(a).substr(0, 2), "20");
}

}  // namespace
}  // namespace agentry::core
