#include "pg_store/repositories.hpp"
#include "store/schedule_codec.hpp"

namespace agentry::pg_store {
namespace {

constexpr std::string_view schedule_columns = "run_id, kind, spec_json, enabled, next_at, last_at, updated_at, state_json";

std::optional<core::Schedule> read_schedule(const Row& row) {
  return store::decode_schedule({row[0].text(), row[1].text(), row[2].text(), row[3].boolean(),
                                 row[4].optional_text(), row[5].optional_text(), row[6].text(), row[7].text()});
}

}  // namespace

void ScheduleRepository::put(const core::Schedule& schedule) {
  auto row = store::encode_schedule(schedule);
  c_.query("INSERT INTO schedules (" + std::string(schedule_columns) +
               ") VALUES ($1,$2,$3,$4,$5,$6,$7,$8) "
               "ON CONFLICT (run_id) DO UPDATE SET kind = excluded.kind, spec_json = excluded.spec_json, "
               "enabled = excluded.enabled, next_at = excluded.next_at, last_at = excluded.last_at, "
               "updated_at = excluded.updated_at, state_json = excluded.state_json",
           {row.run_id, row.kind, row.spec_json, row.enabled, row.next_at, row.last_at, row.updated_at,
            row.state_json});
}

std::optional<core::Schedule> ScheduleRepository::get(std::string_view run_id) {
  auto result = c_.query("SELECT " + std::string(schedule_columns) + " FROM schedules WHERE run_id = $1", {run_id});
  if (result.rows() == 0) return std::nullopt;
  return read_schedule(result.row(0));
}

bool ScheduleRepository::remove(std::string_view run_id) {
  return c_.query("DELETE FROM schedules WHERE run_id = $1", {run_id}).affected_rows() > 0;
}

std::map<std::string, core::Schedule> ScheduleRepository::for_runs(const std::vector<std::string>& run_ids) {
  std::map<std::string, core::Schedule> out;
  if (run_ids.empty()) return out;
  auto result = c_.query("SELECT " + std::string(schedule_columns) + " FROM schedules WHERE run_id = ANY($1::text[])",
                         {text_array(run_ids)});
  for (int i = 0; i < result.rows(); ++i)
    if (auto schedule = read_schedule(result.row(i))) out.emplace(schedule->run_id, std::move(*schedule));
  return out;
}

bool ScheduleRepository::claim(std::string_view run_id, std::string_view due_at, std::string_view version) {
  return c_.query("UPDATE schedules SET last_at = $2, updated_at = $3 "
                  "WHERE run_id = $1 AND enabled AND next_at = $2 AND last_at IS DISTINCT FROM $2::text",
                  {run_id, due_at, version})
             .affected_rows() > 0;
}

std::vector<ArmedSchedule> ScheduleRepository::armed() {
  std::vector<ArmedSchedule> out;
  auto result = c_.query("SELECT run_id, next_at FROM schedules WHERE enabled AND next_at IS NOT NULL");
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    auto ms = core::parse_instant_ms(row[1].text());
    if (!ms) continue;
    out.push_back(ArmedSchedule{row[0].text(), *ms});
  }
  return out;
}

}  // namespace agentry::pg_store
