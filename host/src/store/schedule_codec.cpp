#include "store/schedule_codec.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::store {
namespace json = boost::json;
namespace {

void decode_state(std::string_view state_json, core::Schedule& out) {
  json::error_code ec;
  auto state = json::parse(state_json, ec);
  if (ec || !state.is_object()) return;
  const auto& o = state.as_object();
  auto text = [&](const char* key) -> std::string {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  out.last_outcome = text("lastOutcome");
  out.last_reason = text("lastReason");
  if (auto id = text("lastRunId"); !id.empty()) out.last_run_id = id;
}

}  // namespace

ScheduleRow encode_schedule(const core::Schedule& schedule) {
  json::object state;
  if (!schedule.last_outcome.empty()) state["lastOutcome"] = schedule.last_outcome;
  if (!schedule.last_reason.empty()) state["lastReason"] = schedule.last_reason;
  if (schedule.last_run_id) state["lastRunId"] = *schedule.last_run_id;
  ScheduleRow row;
  row.run_id = schedule.run_id;
  row.kind = std::string(core::to_string(schedule.spec.kind));
  row.spec_json = json::serialize(core::spec_to_json(schedule.spec));
  row.enabled = schedule.enabled;
  if (schedule.next_ms) row.next_at = core::format_iso8601(*schedule.next_ms);
  row.last_at = schedule.last_at;
  row.updated_at = schedule.updated_at;
  row.state_json = json::serialize(state);
  return row;
}

std::optional<core::Schedule> decode_schedule(const ScheduleRow& row) {
  core::Schedule out;
  out.run_id = row.run_id;
  json::error_code ec;
  auto spec_json = json::parse(row.spec_json, ec);
  if (ec || !spec_json.is_object()) {
    core::log_warn("stored schedule cannot be read; ignoring it", {{"runId", out.run_id}});
    return std::nullopt;
  }
  auto spec = core::spec_from_json(spec_json.as_object());
  if (!spec) {
    core::log_warn("stored schedule cannot be read; ignoring it",
                   {{"runId", out.run_id}, {"error", spec.error().message}});
    return std::nullopt;
  }
  out.spec = std::move(*spec);
  out.enabled = row.enabled;
  if (row.next_at)
    if (auto ms = core::parse_instant_ms(*row.next_at)) out.next_ms = *ms;
  out.last_at = row.last_at;
  out.updated_at = row.updated_at;
  decode_state(row.state_json, out);
  return out;
}

}  // namespace agentry::store
