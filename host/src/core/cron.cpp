#include "core/cron.hpp"

#include <array>
#include <cctype>
#include <vector>

namespace agentry::core {
namespace {

struct FieldSpec {
  const char* name;
  unsigned lo;
  unsigned hi;  // inclusive; day-of-week accepts 7 (folded to 0)
  const char* const* names;  // three-letter names for lo.. in order, or nullptr
};

constexpr const char* month_names[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                       "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr const char* weekday_names[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

constexpr std::array<FieldSpec, 5> fields{{{"minute", 0, 59, nullptr},
                                           {"hour", 0, 23, nullptr},
                                           {"day-of-month", 1, 31, nullptr},
                                           {"month", 1, 12, month_names},
                                           {"day-of-week", 0, 7, weekday_names}}};

Failure bad(const FieldSpec& f, std::string_view part, const std::string& why) {
  return fail(ErrorCode::invalid_request,
              std::string("invalid cron ") + f.name + " field '" + std::string(part) + "': " + why +
                  " (expected e.g. '*', '5', '1-5', '*/15', '1,15'; " + std::to_string(f.lo) + "-" +
                  std::to_string(f.hi) + ")",
              {{"field", "cron"}, {"cronField", f.name}});
}

/// A number or (for named fields) a name; false when neither.
bool parse_value(const FieldSpec& f, std::string_view s, unsigned& out) {
  if (s.empty()) return false;
  if (std::isdigit(static_cast<unsigned char>(s[0]))) {
    if (s.size() > 2) return false;
    unsigned v = 0;
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    out = v;
    return true;
  }
  if (!f.names || s.size() != 3) return false;
  const unsigned count = f.hi - f.lo + (f.names == weekday_names ? 0 : 1);
  for (unsigned i = 0; i < count; ++i) {
    bool same = true;
    for (int k = 0; k < 3; ++k)
      if (std::toupper(static_cast<unsigned char>(s[static_cast<std::size_t>(k)])) != f.names[i][k]) same = false;
    if (same) {
      out = f.lo + i;
      return true;
    }
  }
  return false;
}

/// Sets the bits of one field; bit index = value (day-of-week 7 folds to 0).
template <std::size_t N>
Result<void> parse_field(const FieldSpec& f, std::string_view text, std::bitset<N>& bits, bool& star) {
  star = !text.empty() && text[0] == '*';
  if (text.empty()) return bad(f, text, "empty");
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string_view part = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (part.empty()) return bad(f, text, "empty list item");
    std::string_view range = part;
    unsigned step = 1;
    bool stepped = false;
    if (auto slash = part.find('/'); slash != std::string_view::npos) {
      range = part.substr(0, slash);
      auto step_text = part.substr(slash + 1);
      unsigned s = 0;
      if (step_text.empty() || step_text.size() > 2) return bad(f, part, "step must be a number from 1");
      for (char c : step_text) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return bad(f, part, "step must be a number from 1");
        s = s * 10 + static_cast<unsigned>(c - '0');
      }
      if (s == 0) return bad(f, part, "step must be a number from 1");
      step = s;
      stepped = true;
    }
    unsigned lo = f.lo, hi = f.hi == 7 ? 6 : f.hi;
    if (range == "*") {
      // whole range
    } else if (auto dash = range.find('-'); dash != std::string_view::npos) {
      if (!parse_value(f, range.substr(0, dash), lo) || !parse_value(f, range.substr(dash + 1), hi))
        return bad(f, part, "not a range of values");
      if (lo < f.lo || hi > f.hi || lo > f.hi || hi < f.lo) return bad(f, part, "out of range");
      if (lo > hi) return bad(f, part, "range runs backwards");
    } else {
      if (!parse_value(f, range, lo)) return bad(f, part, "not a value");
      if (lo < f.lo || lo > f.hi) return bad(f, part, "out of range");
      hi = stepped ? (f.hi == 7 ? 6 : f.hi) : lo;
      if (stepped && lo > hi) hi = lo;  // "7/2" on weekdays: just Sunday
    }
    for (unsigned v = lo; v <= hi; v += step) bits.set(f.hi == 7 && v == 7 ? 0 : v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return ok();
}

constexpr unsigned max_days[13] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

std::string_view expand_macro(std::string_view text) {
  if (text == "@yearly" || text == "@annually") return "0 0 1 1 *";
  if (text == "@monthly") return "0 0 1 * *";
  if (text == "@weekly") return "0 0 * * 0";
  if (text == "@daily" || text == "@midnight") return "0 0 * * *";
  if (text == "@hourly") return "0 * * * *";
  return {};
}

}  // namespace

bool CronExpr::matches_day(unsigned month, unsigned day, unsigned weekday) const {
  if (!months.test(month)) return false;
  const bool dom = days_of_month.test(day);
  const bool dow = days_of_week.test(weekday);
  if (dom_star || dow_star) return dom && dow;
  return dom || dow;
}

Result<CronExpr> parse_cron(std::string_view text) {
  if (text.size() > 256)
    return fail(ErrorCode::invalid_request, "cron expression is longer than 256 bytes", {{"field", "cron"}});
  // Trim surrounding blanks.
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (!text.empty() && text[0] == '@') {
    auto expanded = expand_macro(text);
    if (expanded.empty())
      return fail(ErrorCode::invalid_request,
                  "unknown cron macro '" + std::string(text) +
                      "' (known: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)",
                  {{"field", "cron"}});
    text = expanded;
  }
  std::vector<std::string_view> parts;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) parts.push_back(text.substr(i, j - i));
    i = j;
  }
  if (parts.size() != 5)
    return fail(ErrorCode::invalid_request,
                "a cron expression has 5 fields (minute hour day-of-month month day-of-week), got " +
                    std::to_string(parts.size()) + ": '" + std::string(text) + "'",
                {{"field", "cron"}});
  CronExpr e;
  bool unused = false;
  if (auto r = parse_field(fields[0], parts[0], e.minutes, unused); !r) return r.failure();
  if (auto r = parse_field(fields[1], parts[1], e.hours, unused); !r) return r.failure();
  if (auto r = parse_field(fields[2], parts[2], e.days_of_month, e.dom_star); !r) return r.failure();
  if (auto r = parse_field(fields[3], parts[3], e.months, unused); !r) return r.failure();
  if (auto r = parse_field(fields[4], parts[4], e.days_of_week, e.dow_star); !r) return r.failure();
  // With day-of-week unrestricted, the days of month must exist in some chosen month.
  if (e.dow_star || e.dom_star) {
    bool possible = false;
    for (unsigned m = 1; m <= 12 && !possible; ++m)
      for (unsigned d = 1; d <= max_days[m] && !possible; ++d)
        if (e.months.test(m) && e.days_of_month.test(d)) possible = true;
    if (!possible)
      return fail(ErrorCode::invalid_request,
                  "cron expression '" + std::string(text) + "' never matches: no chosen month has that day",
                  {{"field", "cron"}});
  }
  return e;
}

}  // namespace agentry::core
