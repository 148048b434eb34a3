#include "core/schedule.hpp"

#include "core/clock.hpp"
#include "core/cron.hpp"
#include "core/time_zone.hpp"

#include <cctype>
#include <ctime>

namespace agentry::core {
namespace json = boost::json;
namespace {

constexpr std::int64_t max_delay_ms = 366LL * 86400 * 1000;

Failure invalid(const std::string& field, const std::string& message) {
  return fail(ErrorCode::invalid_request, message, {{"field", field}});
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

}  // namespace

std::string_view to_string(ScheduleKind kind) { return kind == ScheduleKind::once ? "once" : "recurring"; }

std::string_view to_string(ScheduleMode mode) {
  switch (mode) {
    case ScheduleMode::reuse: return "reuse";
    case ScheduleMode::reset: return "reset";
    case ScheduleMode::clone: return "clone";
  }
  return "reuse";
}

std::optional<ScheduleKind> parse_schedule_kind(std::string_view text) {
  if (text == "once") return ScheduleKind::once;
  if (text == "recurring") return ScheduleKind::recurring;
  return std::nullopt;
}

std::optional<ScheduleMode> parse_schedule_mode(std::string_view text) {
  if (text == "reuse") return ScheduleMode::reuse;
  if (text == "reset") return ScheduleMode::reset;
  if (text == "clone") return ScheduleMode::clone;
  return std::nullopt;
}

Result<std::int64_t> parse_delay_ms(std::string_view text) {
  const std::string field = "delay";
  const std::string usage = "delay must be a duration such as '30s', '30m', '2h', '1h30m' or '7d'";
  if (text.empty() || text.size() > 32) return invalid(field, usage);
  std::int64_t total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    std::int64_t n = 0;
    std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      n = n * 10 + (text[i] - '0');
      if (n > max_delay_ms) return invalid(field, "delay is longer than 366 days");
      ++i;
    }
    if (i == start || i == text.size()) return invalid(field, usage);
    std::int64_t unit = 0;
    switch (text[i]) {
      case 's': unit = 1000; break;
      case 'm': unit = 60 * 1000; break;
      case 'h': unit = 3600 * 1000; break;
      case 'd': unit = 86400 * 1000; break;
      default: return invalid(field, usage);
    }
    ++i;
    total += n * unit;
    if (total > max_delay_ms) return invalid(field, "delay is longer than 366 days");
  }
  if (total < 1000) return invalid(field, "delay must be at least 1s");
  return total;
}

Result<std::int64_t> parse_instant_ms(std::string_view s) {
  const std::string field = "at";
  const std::string usage = "at must be an ISO 8601 time with a zone, e.g. '2030-01-02T09:00:00Z' or "
                            "'2030-01-02T09:00:00+01:00'";
  int y, mo, d, h, mi, sec = 0;
  if (s.size() > 40 || !digits(s, 0, 4, y) || s.size() < 17 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(s, 11, 2, h) || s[13] != ':' ||
      !digits(s, 14, 2, mi))
    return invalid(field, usage);
  std::size_t pos = 16;
  if (pos < s.size() && s[pos] == ':') {
    if (!digits(s, pos + 1, 2, sec)) return invalid(field, usage);
    pos += 3;
  }
  int millis = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int n = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      if (n < 3) millis = millis * 10 + (s[pos] - '0');
      ++n;
      ++pos;
    }
    if (n == 0 || n > 9) return invalid(field, usage);
    for (; n < 3; ++n) millis *= 10;
  }
  int offset_min = 0;
  if (pos >= s.size()) return invalid(field, usage);
  if ((s[pos] == 'Z' || s[pos] == 'z') && pos + 1 == s.size()) {
    // UTC
  } else if (s[pos] == '+' || s[pos] == '-') {
    int oh, om;
    if (pos + 6 != s.size() || !digits(s, pos + 1, 2, oh) || s[pos + 3] != ':' || !digits(s, pos + 4, 2, om) ||
        oh > 23 || om > 59)
      return invalid(field, usage);
    offset_min = (oh * 60 + om) * (s[pos] == '-' ? -1 : 1);
  } else {
    return invalid(field, usage);
  }
  static constexpr int month_days[] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > month_days[mo] || (mo == 2 && d == 29 && !leap) || h > 23 ||
      mi > 59 || sec > 59)
    return invalid(field, usage);
  const std::int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const std::int64_t secs = days * 86400 + h * 3600 + mi * 60 + sec - offset_min * 60;
  return secs * 1000 + millis;
}

Result<ScheduleSpec> parse_schedule_request(const json::object& body, std::int64_t now_ms) {
  for (const auto& [key, value] : body) {
    if (key != "at" && key != "delay" && key != "cron" && key != "timezone" && key != "mode" &&
        key != "continueOnFailure")
      return invalid(std::string(key), "unknown schedule field '" + std::string(key) +
                                           "' (known: at, delay, cron, timezone, mode, continueOnFailure)");
  }
  const int given = (body.contains("at") ? 1 : 0) + (body.contains("delay") ? 1 : 0) + (body.contains("cron") ? 1 : 0);
  if (given != 1)
    return invalid("schedule", "a schedule needs exactly one of at, delay or cron");
  auto text = [&](const char* key) -> Result<std::string> {
    const auto& v = body.at(key);
    if (!v.is_string()) return invalid(key, std::string("field '") + key + "' must be a string");
    return std::string(v.as_string());
  };
  ScheduleSpec spec;
  if (!body.contains("cron")) {
    for (const char* key : {"timezone", "mode", "continueOnFailure"})
      if (body.contains(key))
        return invalid(key, std::string("field '") + key + "' is valid only with cron");
    spec.kind = ScheduleKind::once;
    if (body.contains("at")) {
      auto at = text("at");
      if (!at) return at.failure();
      auto ms = parse_instant_ms(*at);
      if (!ms) return ms.failure();
      if (*ms <= now_ms) return invalid("at", "at " + *at + " is not in the future (now " + format_iso8601(now_ms) + ")");
      if (*ms - now_ms > 10LL * 366 * 86400 * 1000) return invalid("at", "at is more than ten years away");
      spec.at_ms = *ms;
    } else {
      auto delay = text("delay");
      if (!delay) return delay.failure();
      auto ms = parse_delay_ms(*delay);
      if (!ms) return ms.failure();
      spec.delay = *delay;
      spec.at_ms = now_ms + *ms;
    }
    return spec;
  }
  spec.kind = ScheduleKind::recurring;
  auto cron = text("cron");
  if (!cron) return cron.failure();
  if (auto parsed = parse_cron(*cron); !parsed) return parsed.failure();
  spec.cron = *cron;
  if (body.contains("timezone")) {
    auto tz = text("timezone");
    if (!tz) return tz.failure();
    spec.timezone = *tz;
  }
  if (auto zone = TimeZone::locate(spec.timezone); !zone) return zone.failure();
  if (body.contains("mode")) {
    auto mode_text = text("mode");
    if (!mode_text) return mode_text.failure();
    auto mode = parse_schedule_mode(*mode_text);
    if (!mode) return invalid("mode", "mode must be reuse, reset or clone, not '" + *mode_text + "'");
    spec.mode = *mode;
  }
  if (body.contains("continueOnFailure")) {
    const auto& v = body.at("continueOnFailure");
    if (!v.is_bool()) return invalid("continueOnFailure", "field 'continueOnFailure' must be a boolean");
    spec.continue_on_failure = v.as_bool();
  }
  return spec;
}

std::optional<std::int64_t> next_due_ms(const ScheduleSpec& spec, std::int64_t now_ms) {
  if (spec.kind == ScheduleKind::once) return spec.at_ms;
  auto expr = parse_cron(spec.cron);
  auto zone = TimeZone::locate(spec.timezone);
  if (!expr || !zone) return std::nullopt;
  // Whole seconds: an occurrence is due at second 0 of its minute.
  std::int64_t now_s = now_ms / 1000 - (now_ms % 1000 < 0 ? 1 : 0);
  auto next = next_occurrence(*expr, *zone, now_s);
  if (!next) return std::nullopt;
  return *next * 1000;
}

json::object spec_to_json(const ScheduleSpec& spec) {
  json::object out{{"kind", to_string(spec.kind)}};
  if (spec.kind == ScheduleKind::once) {
    out["at"] = spec.at_ms ? json::value(format_iso8601(*spec.at_ms)) : json::value(nullptr);
    out["delay"] = spec.delay ? json::value(*spec.delay) : json::value(nullptr);
  } else {
    out["cron"] = spec.cron;
    out["timezone"] = spec.timezone;
    out["mode"] = to_string(spec.mode);
    out["continueOnFailure"] = spec.continue_on_failure;
  }
  return out;
}

Result<ScheduleSpec> spec_from_json(const json::object& j) {
  auto string_at = [&](const char* key) -> std::string {
    auto* v = j.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  auto kind = parse_schedule_kind(string_at("kind"));
  if (!kind) return fail(ErrorCode::internal, "stored schedule has no valid kind");
  ScheduleSpec spec;
  spec.kind = *kind;
  if (spec.kind == ScheduleKind::once) {
    auto at = parse_instant_ms(string_at("at"));
    if (!at) return fail(ErrorCode::internal, "stored one-time schedule has no valid at");
    spec.at_ms = *at;
    if (auto d = string_at("delay"); !d.empty()) spec.delay = d;
    return spec;
  }
  spec.cron = string_at("cron");
  spec.timezone = string_at("timezone");
  auto mode = parse_schedule_mode(string_at("mode"));
  if (!mode || !parse_cron(spec.cron) || !TimeZone::locate(spec.timezone))
    return fail(ErrorCode::internal, "stored recurring schedule cannot be read");
  spec.mode = *mode;
  auto* c = j.if_contains("continueOnFailure");
  spec.continue_on_failure = c && c->is_bool() && c->as_bool();
  return spec;
}

json::object to_json(const Schedule& s) {
  json::object out = spec_to_json(s.spec);
  out["enabled"] = s.enabled;
  out["nextAt"] = s.next_ms ? json::value(format_iso8601(*s.next_ms)) : json::value(nullptr);
  out["lastAt"] = s.last_at ? json::value(*s.last_at) : json::value(nullptr);
  out["lastOutcome"] = s.last_outcome.empty() ? json::value(nullptr) : json::value(s.last_outcome);
  out["lastReason"] = s.last_reason.empty() ? json::value(nullptr) : json::value(s.last_reason);
  out["lastRunId"] = s.last_run_id ? json::value(*s.last_run_id) : json::value(nullptr);
  out["updatedAt"] = s.updated_at;
  return out;
}

}  // namespace agentry::core
