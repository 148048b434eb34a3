#include "pg_store/repositories.hpp"

namespace agentry::pg_store {
namespace {

constexpr const char* run_start_columns = "run_id, message, trigger, actor, automatic, since";

std::vector<store::WaitingStart> read_starts(const Result& result) {
  std::vector<store::WaitingStart> out;
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    out.push_back(store::WaitingStart{row[0].text(), row[1].optional_text(), row[2].text(), row[3].text(),
                                      row[4].boolean(), row[5].text()});
  }
  return out;
}

std::optional<store::WaitingStart> first(std::vector<store::WaitingStart> starts) {
  if (starts.empty()) return std::nullopt;
  return std::move(starts.front());
}

}  // namespace

void RunStartRepository::put(const store::WaitingStart& w) {
  c_.query("INSERT INTO run_starts (run_id, message, trigger, actor, automatic, since) VALUES ($1, $2, $3, $4, $5, $6) "
           "ON CONFLICT (run_id) DO UPDATE SET message = $2, trigger = $3, actor = $4, automatic = $5, since = $6",
           {w.run_id, w.message, w.trigger, w.actor, w.automatic, w.since});
}

std::optional<store::WaitingStart> RunStartRepository::get(std::string_view run_id) {
  return first(read_starts(c_.query(std::string("SELECT ") + run_start_columns + " FROM run_starts WHERE run_id = $1", {run_id})));
}

std::optional<store::WaitingStart> RunStartRepository::claim(std::string_view run_id) {
  // Another member claiming it now holds the row: skipped, not waited for.
  return first(read_starts(c_.query(
      std::string("SELECT ") + run_start_columns + " FROM run_starts WHERE run_id = $1 FOR UPDATE SKIP LOCKED", {run_id})));
}

bool RunStartRepository::remove(std::string_view run_id) {
  return c_.query("DELETE FROM run_starts WHERE run_id = $1", {run_id}).affected_rows() > 0;
}

std::vector<store::WaitingStart> RunStartRepository::oldest(int limit) {
  return read_starts(c_.query(std::string("SELECT ") + run_start_columns + " FROM run_starts ORDER BY since, run_id LIMIT $1",
                              {limit}));
}

}  // namespace agentry::pg_store
