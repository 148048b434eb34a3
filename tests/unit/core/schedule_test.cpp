#include "core/schedule.hpp"

#include "core/clock.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace agentry::core {
namespace {
namespace json = boost::json;

const std::int64_t now = *parse_instant_ms("2024-06-01T12:00:00Z");

Result<ScheduleSpec> request(const char* body) { return parse_schedule_request(json::parse(body).as_object(), now); }

std::string field_of(const Result<ScheduleSpec>& r) {
  if (r) return "(accepted)";
  auto* f = r.error().details.if_contains("field");
  return f ? std::string(f->as_string()) : "";
}

TEST(ScheduleTest, Delays) {
  EXPECT_EQ(*parse_delay_ms("30m"), 30 * 60 * 1000);
  EXPECT_EQ(*parse_delay_ms("1s"), 1000);
  EXPECT_EQ(*parse_delay_ms("2h"), 2 * 3600 * 1000);
  EXPECT_EQ(*parse_delay_ms("1h30m"), 90 * 60 * 1000);
  EXPECT_EQ(*parse_delay_ms("7d"), 7LL * 86400 * 1000);
  EXPECT_EQ(*parse_delay_ms("366d"), 366LL * 86400 * 1000);
  for (const char* bad : {"", "30", "m", "0s", "-5m", "5 m", "5x", "1.5h", "367d", "99999999999999999999s", "30mm"})
    EXPECT_FALSE(parse_delay_ms(bad)) << bad;
}

TEST(ScheduleTest, Instants) {
  EXPECT_EQ(format_iso8601(*parse_instant_ms("2030-01-02T03:04:05Z")), "2030-01-02T03:04:05.000Z");
  EXPECT_EQ(format_iso8601(*parse_instant_ms("2030-01-02T03:04:05.25+01:00")), "2030-01-02T02:04:05.250Z");
  EXPECT_EQ(format_iso8601(*parse_instant_ms("2030-01-02T03:04-05:30")), "2030-01-02T08:34:00.000Z");
  EXPECT_EQ(format_iso8601(*parse_instant_ms("2024-02-29T00:00:00Z")), "2024-02-29T00:00:00.000Z");
  for (const char* bad : {"", "2030-01-02", "2030-01-02T03:04:05", "2030-13-02T03:04:05Z", "2023-02-29T00:00:00Z",
                          "2030-01-02T24:00:00Z", "2030-01-02T03:04:05+1", "2030-01-02T03:04:05Zjunk", "tomorrow"})
    EXPECT_FALSE(parse_instant_ms(bad)) << bad;
}

TEST(ScheduleTest, OneTimeRequests) {
  auto delay = request(R"({"delay":"30m"})");
  ASSERT_TRUE(delay);
  EXPECT_EQ(delay->kind, ScheduleKind::once);
  EXPECT_EQ(*delay->at_ms, now + 30 * 60 * 1000);
  EXPECT_EQ(*delay->delay, "30m");
  auto at = request(R"({"at":"2024-06-02T00:00:00+02:00"})");
  ASSERT_TRUE(at);
  EXPECT_EQ(format_iso8601(*at->at_ms), "2024-06-01T22:00:00.000Z");
  EXPECT_FALSE(at->delay);
  EXPECT_EQ(field_of(request(R"({"at":"2024-06-01T11:00:00Z"})")), "at");  // past
  EXPECT_EQ(field_of(request(R"({"at":"2040-06-01T11:00:00Z"})")), "at");  // too far
  EXPECT_EQ(field_of(request(R"({"delay":"30m","timezone":"UTC"})")), "timezone");
  EXPECT_EQ(field_of(request(R"({"delay":"30m","mode":"clone"})")), "mode");
  EXPECT_EQ(field_of(request(R"({"at":"2024-06-02T00:00:00Z","continueOnFailure":true})")), "continueOnFailure");
  EXPECT_EQ(field_of(request(R"({"delay":30})")), "delay");
}

TEST(ScheduleTest, RecurringRequests) {
  auto r = request(R"({"cron":"0 9 * * *","timezone":"Europe/Berlin","mode":"clone","continueOnFailure":true})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, ScheduleKind::recurring);
  EXPECT_EQ(r->cron, "0 9 * * *");
  EXPECT_EQ(r->timezone, "Europe/Berlin");
  EXPECT_EQ(r->mode, ScheduleMode::clone);
  EXPECT_TRUE(r->continue_on_failure);
  EXPECT_EQ(format_iso8601(*next_due_ms(*r, now)), "2024-06-02T07:00:00.000Z");
  auto defaults = request(R"({"cron":"@daily"})");
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->timezone, "UTC");
  EXPECT_EQ(defaults->mode, ScheduleMode::reuse);
  EXPECT_FALSE(defaults->continue_on_failure);
  EXPECT_EQ(field_of(request(R"({"cron":"0 9 * *"})")), "cron");
  EXPECT_EQ(field_of(request(R"({"cron":"0 9 * * *","timezone":"Nowhere/Else"})")), "timezone");
  EXPECT_EQ(field_of(request(R"({"cron":"0 9 * * *","mode":"fork"})")), "mode");
  EXPECT_EQ(field_of(request(R"({"cron":"0 9 * * *","continueOnFailure":"yes"})")), "continueOnFailure");
}

TEST(ScheduleTest, ExactlyOneOfAtDelayCronAndNoUnknownFields) {
  EXPECT_EQ(field_of(request(R"({})")), "schedule");
  EXPECT_EQ(field_of(request(R"({"delay":"1m","cron":"* * * * *"})")), "schedule");
  EXPECT_EQ(field_of(request(R"({"delay":"1m","at":"2024-06-02T00:00:00Z"})")), "schedule");
  EXPECT_EQ(field_of(request(R"({"delay":"1m","every":"5m"})")), "every");
}

TEST(ScheduleTest, SpecsRoundTripThroughJson) {
  for (const char* body : {R"({"delay":"90s"})", R"({"at":"2024-07-01T00:00:00Z"})",
                           R"({"cron":"*/5 9-17 * * MON-FRI","timezone":"America/New_York","mode":"reset"})"}) {
    auto spec = request(body);
    ASSERT_TRUE(spec) << body;
    auto back = spec_from_json(spec_to_json(*spec));
    ASSERT_TRUE(back) << body;
    EXPECT_EQ(spec_to_json(*back), spec_to_json(*spec)) << body;
  }
  Schedule s;
  s.spec = *request(R"({"cron":"@hourly"})");
  s.next_ms = now;
  s.last_outcome = "skipped";
  s.last_reason = "run is archived";
  auto j = to_json(s);
  EXPECT_EQ(j.at("kind"), "recurring");
  EXPECT_EQ(j.at("enabled"), true);
  EXPECT_EQ(j.at("nextAt"), "2024-06-01T12:00:00.000Z");
  EXPECT_EQ(j.at("lastOutcome"), "skipped");
  EXPECT_TRUE(j.at("lastAt").is_null());
  EXPECT_FALSE(spec_from_json(json::object{{"kind", "recurring"}, {"cron", "bad"}}));
}

}  // namespace
}  // namespace agentry::core
