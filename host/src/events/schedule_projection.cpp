#include "events/schedule_projection.hpp"

#include "core/clock.hpp"
#include "core/schedule_rules.hpp"

#include <boost/json/object.hpp>

namespace agentry::events {
namespace json = boost::json;

json::value schedule_json(const core::Run& run) {
  if (!run.schedule) return nullptr;
  return core::to_json(*run.schedule);
}

json::value schedule_state_json(const core::Run& run) {
  if (!run.schedule) return nullptr;
  const auto& s = *run.schedule;
  json::object out;
  json::value reason = nullptr;
  std::string state;
  if (!s.enabled) {
    state = "disabled";
    if (!s.last_reason.empty() && s.last_outcome == "disabled") reason = s.last_reason;
  } else if (!s.next_ms) {
    state = "done";
  } else if (auto blocker = core::schedule_blocker(run, s)) {
    state = "blocked";
    reason = blocker->message;
  } else {
    state = "scheduled";
  }
  out["state"] = state;
  out["reason"] = std::move(reason);
  out["nextAt"] = s.enabled && s.next_ms ? json::value(core::format_iso8601(*s.next_ms)) : json::value(nullptr);
  return out;
}

}  // namespace agentry::events
