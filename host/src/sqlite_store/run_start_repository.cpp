#include "sqlite_store/repositories.hpp"

namespace agentry::sqlite_store {
namespace {

constexpr const char* run_start_columns = "run_id, message, trigger, actor, automatic, since";

store::WaitingStart read_start(Statement& s) {
  return store::WaitingStart{s.column_text(0),
                             s.column_is_null(1) ? std::nullopt : std::optional<std::string>(s.column_text(1)),
                             s.column_text(2), s.column_text(3), s.column_bool(4), s.column_text(5)};
}

}  // namespace

void RunStartRepository::put(const store::WaitingStart& w) {
  auto s = c_.prepare(
      "INSERT INTO run_starts (run_id, message, trigger, actor, automatic, since) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
      "ON CONFLICT (run_id) DO UPDATE SET message = ?2, trigger = ?3, actor = ?4, automatic = ?5, since = ?6");
  s.bind(1, w.run_id).bind(2, w.message).bind(3, w.trigger).bind(4, w.actor).bind(5, w.automatic).bind(6, w.since);
  s.run();
}

std::optional<store::WaitingStart> RunStartRepository::get(std::string_view run_id) {
  auto s = c_.prepare(std::string("SELECT ") + run_start_columns + " FROM run_starts WHERE run_id = ?1");
  s.bind(1, run_id);
  if (!s.step()) return std::nullopt;
  return read_start(s);
}

// One writer at a time holds the whole file: a write transaction that reads the row owns it.
std::optional<store::WaitingStart> RunStartRepository::claim(std::string_view run_id) { return get(run_id); }

bool RunStartRepository::remove(std::string_view run_id) {
  auto s = c_.prepare("DELETE FROM run_starts WHERE run_id = ?1");
  s.bind(1, run_id);
  s.run();
  return c_.changes() > 0;
}

std::vector<store::WaitingStart> RunStartRepository::oldest(int limit) {
  auto s = c_.prepare(std::string("SELECT ") + run_start_columns + " FROM run_starts ORDER BY since, run_id LIMIT ?1");
  s.bind(1, limit);
  std::vector<store::WaitingStart> out;
  while (s.step()) out.push_back(read_start(s));
  return out;
}

}  // namespace agentry::sqlite_store
