#include "sqlite_store/repositories.hpp"
#include "sqlite_store/sql_lists.hpp"
#include "store/schedule_codec.hpp"

namespace agentry::sqlite_store {
namespace {

constexpr std::string_view schedule_columns = "run_id, kind, spec_json, enabled, next_at, last_at, updated_at, state_json";

std::optional<core::Schedule> read_schedule(const Statement& s) {
  return store::decode_schedule({s.column_text(0), s.column_text(1), s.column_text(2), s.column_bool(3),
                                 s.column_optional_text(4), s.column_optional_text(5), s.column_text(6),
                                 s.column_text(7)});
}

}  // namespace

void ScheduleRepository::put(const core::Schedule& schedule) {
  auto s = c_.prepare("INSERT OR REPLACE INTO schedules (" + std::string(schedule_columns) + ") VALUES (?,?,?,?,?,?,?,?)");
  auto row = store::encode_schedule(schedule);
  s.bind(1, row.run_id).bind(2, row.kind).bind(3, row.spec_json).bind(4, row.enabled).bind(5, row.next_at);
  s.bind(6, row.last_at).bind(7, row.updated_at).bind(8, row.state_json);
  s.run();
}

std::optional<core::Schedule> ScheduleRepository::get(std::string_view run_id) {
  auto s = c_.prepare("SELECT " + std::string(schedule_columns) + " FROM schedules WHERE run_id = ?");
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
  auto s = c_.prepare("SELECT " + std::string(schedule_columns) +
                     " FROM schedules WHERE run_id IN (SELECT value FROM json_each(?))");
  s.bind(1, json_array_text(run_ids));
  while (s.step())
    if (auto schedule = read_schedule(s)) out.emplace(schedule->run_id, std::move(*schedule));
  return out;
}

bool ScheduleRepository::claim(std::string_view run_id, std::string_view due_at, std::string_view version) {
  auto s = c_.prepare("UPDATE schedules SET last_at = ?2, updated_at = ?3 "
                      "WHERE run_id = ?1 AND enabled = 1 AND next_at = ?2 AND last_at IS NOT ?2");
  s.bind(1, run_id).bind(2, due_at).bind(3, version);
  s.run();
  return c_.changes() > 0;
}

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
