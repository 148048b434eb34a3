#include "pg_store/repositories.hpp"

// PLACEHOLDER: replaced by the port of sqlite_store/schedule_repository.cpp
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace agentry::pg_store {

void ScheduleRepository::put(const core::Schedule& schedule) {
  throw PgError("ScheduleRepository::put is not ported yet", "");
}

std::optional<core::Schedule> ScheduleRepository::get(std::string_view run_id) {
  throw PgError("ScheduleRepository::get is not ported yet", "");
}

bool ScheduleRepository::remove(std::string_view run_id) {
  throw PgError("ScheduleRepository::remove is not ported yet", "");
}

std::map<std::string, core::Schedule> ScheduleRepository::for_runs(const std::vector<std::string>& run_ids) {
  throw PgError("ScheduleRepository::for_runs is not ported yet", "");
}

void ScheduleRepository::attach(std::vector<core::Run>& runs) {
  throw PgError("ScheduleRepository::attach is not ported yet", "");
}

void ScheduleRepository::attach(core::Run& run) {
  throw PgError("ScheduleRepository::attach is not ported yet", "");
}

std::vector<ArmedSchedule> ScheduleRepository::armed() {
  throw PgError("ScheduleRepository::armed is not ported yet", "");
}

}  // namespace agentry::pg_store
