#include "events/timeline_metrics.hpp"

#include "core/metrics.hpp"

#include <boost/json/parse.hpp>

#include <array>
#include <string_view>

namespace agentry::events {
// Kinds compared as views: the size first, where `std::string == const char*` measures
// the literal and compares text for every event.
using namespace std::string_view_literals;
namespace {

namespace m = core::metrics;

/// The payload's text field when it is one of `known`, else "other": label values stay a
/// small fixed set whatever a backend writes.
/// The event's payload: a backend's event carries it as the text it wrote (payload_text()),
/// parsed here only for the few kinds counted.
boost::json::object payload_of(const core::TimelineEvent& e) {
  if (!e.payload.empty() || e.payload_text().empty()) return e.payload;
  boost::system::error_code ec;
  auto parsed = boost::json::parse(e.payload_text(), ec);
  if (ec || !parsed.is_object()) return {};
  return std::move(parsed.as_object());
}

template <std::size_t N>
std::string label_of(const boost::json::object& payload, const char* field,
                     const std::array<std::string_view, N>& known) {
  if (const auto* v = payload.if_contains(field); v && v->is_string())
    for (auto k : known)
      if (v->get_string() == k) return std::string(k);
  return "other";
}

void count_usage(const boost::json::object& usage) {
  static constexpr std::array<std::pair<const char*, const char*>, 4> kinds = {
      {{"inputTokens", "input"}, {"cachedInputTokens", "cached_input"}, {"outputTokens", "output"},
       {"reasoningTokens", "reasoning"}}};
  for (const auto& [field, kind] : kinds) {
    const auto* v = usage.if_contains(field);
    if (!v || !v->is_number()) continue;
    double n = v->to_number<double>();
    if (n > 0)
      m::registry()
          .counter("agentry_tokens_total", "Tokens the agents reported using, by kind (usage events).",
                   {{"kind", kind}})
          .inc(n);
  }
}

}  // namespace

void count_timeline_events(const std::vector<core::TimelineEvent>& events) {
  static constexpr std::array<std::string_view, 3> outcomes = {"success", "error", "interrupted"};
  static constexpr std::array<std::string_view, 5> statuses = {"success", "error", "aborted", "blocked",
                                                               "exhausted"};
  auto& r = m::registry();
  for (const auto& e : events) {
    if (e.ephemeral) continue;
    if (e.kind == "attempt.started"sv) {
      static auto& started = r.counter("agentry_attempts_started_total", "Attempts started by this daemon.");
      started.inc();
    } else if (e.kind == "attempt.finished"sv) {
      r.counter("agentry_attempts_finished_total", "Attempts ended, by outcome.",
                {{"outcome", label_of(payload_of(e), "outcome", outcomes)}})
          .inc();
    } else if (e.kind == "run.finished"sv) {
      r.counter("agentry_sessions_finished_total", "Sessions of runs ended, by the status they left the run in.",
                {{"status", label_of(payload_of(e), "status", statuses)}})
          .inc();
    } else if (e.kind == "usage"sv) {
      count_usage(payload_of(e));
    }
  }
}

}  // namespace agentry::events
