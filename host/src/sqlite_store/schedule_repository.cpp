#include "sqlite_store/repositories.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "sqlite_store/sql_lists.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::sqlite_store {
namespace json = boost::json;
namespace {

constexpr std::string_view columns = "run_id, kind, spec_json, enabled, next_at, last_at, updated_at, state_json";

std::optional<core::Schedule> read_schedule(const Statement& s) {
  core::Schedule out;
  out.run_id = s.column_text(0);
  json::error_code ec;
  auto spec_json = json::parse(s.column_text(2), ec);
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
  out.enabled = s.column_bool(3);
  if (auto next = s.column_optional_text(4))
    if (auto ms = core::parse_instant_ms(*next)) out.next_ms = *ms;
  out.last_at = s.column_optional_text(5);
  out.updated_at = s.column_text(6);
  auto state = json::parse(s.column_text(7), ec);
  if (!ec && state.is_object()) {
    const auto& o = state.as_object();
    auto text = [&](const char* key) -> std::string {
      auto* v = o.if_contains(key);
      return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    out.last_outcome = text("lastOutcome");
    out.last_reason = text("lastReason");
    if (auto id = text("lastRunId"); !id.empty()) out.last_run_id = id;
  }
  return out;
}

}  // namespace

void ScheduleRepository::put(const core::Schedule& schedule) {
  auto s = c_.prepare("INSERT OR REPLACE INTO schedules (" + std::string(columns) + ") VALUES (?,?,?,?,?,?,?,?)");
  json::object state;
  if (!schedule.last_outcome.empty()) state["lastOutcome"] = schedule.last_outcome;
  if (!schedule.last_reason.empty()) state["lastReason"] = schedule.last_reason;
  if (schedule.last_run_id) state["lastRunId"] = *schedule.last_run_id;
  s.bind(1, schedule.run_id).bind(2, core::to_string(schedule.spec.kind));
  s.bind(3, json::serialize(core::spec_to_json(schedule.spec))).bind(4, schedule.enabled);
  if (schedule.next_ms) s.bind(5, core::format_iso8601(*schedule.next_ms));
  else s.bind_null(5);
  s.bind(6, schedule.last_at).bind(7, schedule.updated_at).bind(8, json::serialize(state));
  s.run();
}

std::optional<core::Schedule> ScheduleRepository::get(std::string_view run_id) {
  auto s = c_.prepare("SELECT " + std::string(columns) + " FROM schedules WHERE run_id = ?");
  s.bind(1, run_id);
  if (!s.step()) return std::nullopt;
  return read_schedule(s);
}

bool ScheduleRepository::remove(std::string_view run_id) {
  auto s = c_.prepare("DELETE FROM schedules WHERE run_id = ?");
  s.bind(1, run_id);
  s.run();
  return c_.changes() > 0;
}

std::map<std::string, core::Schedule> ScheduleRepository::for_runs(const std::vector<std::string>& run_ids) {
  std::map<std::string, core::Schedule> out;
  if (run_ids.empty()) return out;
  auto s = c_.prepare("SELECT " + std::string(columns) +
                     " FROM schedules WHERE run_id IN (SELECT value FROM json_each(?))");
  s.bind(1, json_array_text(run_ids));
  while (s.step())
    if (auto schedule = read_schedule(s)) out.emplace(schedule->run_id, std::move(*schedule));
  return out;
}

void ScheduleRepository::attach(std::vector<core::Run>& runs) {
  std::vector<std::string> ids;
  ids.reserve(runs.size());
  for (const auto& r : runs) ids.push_back(r.id);
  auto schedules = for_runs(ids);
  if (schedules.empty()) return;
  for (auto& r : runs)
    if (auto it = schedules.find(r.id); it != schedules.end()) r.schedule = std::move(it->second);
}

void ScheduleRepository::attach(core::Run& run) { run.schedule = get(run.id); }

std::vector<ArmedSchedule> ScheduleRepository::armed() {
  std::vector<ArmedSchedule> out;
  auto s = c_.prepare("SELECT run_id, next_at FROM schedules WHERE enabled = 1 AND next_at IS NOT NULL");
  while (s.step()) {
    auto ms = core::parse_instant_ms(s.column_text(1));
    if (!ms) continue;
    out.push_back(ArmedSchedule{s.column_text(0), *ms});
  }
  return out;
}

}  // namespace agentry::sqlite_store
