#include "sqlite_store/repositories.hpp"
#include "sqlite_store/sql_lists.hpp"
#include "store/payload_codec.hpp"

#include <boost/json/serialize.hpp>

namespace agentry::sqlite_store {
namespace {

constexpr std::string_view session_columns =
    "run_id, session_index, status, started_at, ended_at, backend_session_id, end_reason, prompt, ended_by, source_json";
constexpr std::string_view attempt_columns =
    "run_id, attempt_number, session_index, index_in_session, started_at, ended_at, outcome";

core::Session read_session(const Statement& s) {
  core::Session out;
  out.run_id = s.column_text(0);
  out.index = s.column_int(1);
  out.status = s.column_text(2);
  out.started_at = s.column_text(3);
  out.ended_at = s.column_optional_text(4);
  out.backend_session_id = s.column_optional_text(5);
  out.end_reason = s.column_text(6);
  out.prompt = s.column_text(7);
  out.ended_by = s.column_text(8);
  out.source = store::decode_object_or_empty(s.column_text(9));
  return out;
}

void bind_session(Statement& s, const core::Session& v) {
  s.bind(1, v.run_id).bind(2, v.index).bind(3, v.status).bind(4, v.started_at).bind(5, v.ended_at);
  s.bind(6, v.backend_session_id).bind(7, v.end_reason).bind(8, v.prompt).bind(9, v.ended_by);
  s.bind(10, boost::json::serialize(v.source));
}

core::Attempt read_attempt(const Statement& s) {
  core::Attempt a;
  a.run_id = s.column_text(0);
  a.number = s.column_int(1);
  a.session_index = s.column_int(2);
  a.index_in_session = s.column_int(3);
  a.started_at = s.column_text(4);
  a.ended_at = s.column_optional_text(5);
  a.outcome = s.column_text(6);
  return a;
}

void bind_attempt(Statement& s, const core::Attempt& a) {
  s.bind(1, a.run_id).bind(2, a.number).bind(3, a.session_index).bind(4, a.index_in_session);
  s.bind(5, a.started_at).bind(6, a.ended_at).bind(7, a.outcome);
}

}  // namespace

void SessionRepository::insert(const core::Session& session) {
  auto s = c_.prepare("INSERT INTO sessions (" + std::string(session_columns) + ") VALUES (?,?,?,?,?,?,?,?,?,?)");
  bind_session(s, session);
  s.run();
}

void SessionRepository::update(const core::Session& session) {
  auto s = c_.prepare(
      "UPDATE sessions SET status=?3, started_at=?4, ended_at=?5, backend_session_id=?6, end_reason=?7, prompt=?8, "
      "ended_by=?9, source_json=?10 "
      "WHERE run_id=?1 AND session_index=?2");
  bind_session(s, session);
  s.run();
}

std::optional<core::Session> SessionRepository::get(std::string_view run_id, int index) {
  auto s = c_.prepare("SELECT " + std::string(session_columns) +
                     " FROM sessions WHERE run_id = ? AND session_index = ?");
  s.bind(1, run_id).bind(2, index);
  if (!s.step()) return std::nullopt;
  return read_session(s);
}

std::vector<core::Session> SessionRepository::list(std::string_view run_id) {
  auto s = c_.prepare("SELECT " + std::string(session_columns) +
                     " FROM sessions WHERE run_id = ? ORDER BY session_index");
  s.bind(1, run_id);
  std::vector<core::Session> out;
  while (s.step()) out.push_back(read_session(s));
  return out;
}

std::map<std::string, core::Session> SessionRepository::latest(const std::vector<std::string>& run_ids) {
  std::map<std::string, core::Session> out;
  if (run_ids.empty()) return out;
  // The prompt is left out (list pages do not show it); the attempt range is added.
  auto s = c_.prepare("SELECT s.run_id, s.session_index, s.status, s.started_at, s.ended_at, s.backend_session_id, "
                     "s.end_reason, '', s.ended_by, s.source_json, " + std::string(store::session_attempt_range) +
                     " FROM sessions s JOIN runs r ON r.id = s.run_id "
                     "AND s.session_index = r.session_count - 1 "
                     "WHERE s.run_id IN (SELECT value FROM json_each(?))");
  s.bind(1, json_array_text(run_ids));
  while (s.step()) {
    auto session = read_session(s);
    session.first_attempt_number = s.column_int(10);
    session.last_attempt_number = s.column_int(11);
    session.attempt_count = s.column_int(12);
    out.emplace(session.run_id, std::move(session));
  }
  return out;
}

void SessionRepository::insert_attempt(const core::Attempt& attempt) {
  auto s = c_.prepare("INSERT INTO attempts (" + std::string(attempt_columns) + ") VALUES (?,?,?,?,?,?,?)");
  bind_attempt(s, attempt);
  s.run();
}

void SessionRepository::update_attempt(const core::Attempt& attempt) {
  auto s = c_.prepare("UPDATE attempts SET session_index=?3, index_in_session=?4, started_at=?5, ended_at=?6, "
                     "outcome=?7 WHERE run_id=?1 AND attempt_number=?2");
  bind_attempt(s, attempt);
  s.run();
}

std::vector<core::Attempt> SessionRepository::list_attempts(std::string_view run_id) {
  auto s = c_.prepare("SELECT " + std::string(attempt_columns) +
                     " FROM attempts WHERE run_id = ? ORDER BY attempt_number");
  s.bind(1, run_id);
  std::vector<core::Attempt> out;
  while (s.step()) out.push_back(read_attempt(s));
  return out;
}

void SessionRepository::remove_all(std::string_view run_id) {
  auto a = c_.prepare("DELETE FROM attempts WHERE run_id = ?");
  a.bind(1, run_id);
  a.run();
  auto s = c_.prepare("DELETE FROM sessions WHERE run_id = ?");
  s.bind(1, run_id);
  s.run();
}

}  // namespace agentry::sqlite_store
