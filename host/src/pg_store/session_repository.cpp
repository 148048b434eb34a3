#include "pg_store/repositories.hpp"
#include "store/payload_codec.hpp"

#include <boost/json/serialize.hpp>

namespace agentry::pg_store {
namespace {

constexpr std::string_view session_columns =
    "run_id, session_index, status, started_at, ended_at, backend_session_id, end_reason, prompt, ended_by, source_json";
constexpr std::string_view attempt_columns =
    "run_id, attempt_number, session_index, index_in_session, started_at, ended_at, outcome";

core::Session read_session(const Row& row) {
  core::Session out;
  out.run_id = row[0].text();
  out.index = static_cast<int>(row[1].int64());
  out.status = row[2].text();
  out.started_at = row[3].text();
  out.ended_at = row[4].optional_text();
  out.backend_session_id = row[5].optional_text();
  out.end_reason = row[6].text();
  out.prompt = row[7].text();
  out.ended_by = row[8].text();
  out.source = store::decode_object_or_empty(row[9].text());
  return out;
}

/// Every column in session_columns order, as $1..$10.
std::vector<Param> session_params(const core::Session& v) {
  return {v.run_id,     v.index,  v.status,   v.started_at, v.ended_at, v.backend_session_id,
          v.end_reason, v.prompt, v.ended_by, boost::json::serialize(v.source)};
}

core::Attempt read_attempt(const Row& row) {
  core::Attempt a;
  a.run_id = row[0].text();
  a.number = static_cast<int>(row[1].int64());
  a.session_index = static_cast<int>(row[2].int64());
  a.index_in_session = static_cast<int>(row[3].int64());
  a.started_at = row[4].text();
  a.ended_at = row[5].optional_text();
  a.outcome = row[6].text();
  return a;
}

/// Every column in attempt_columns order, as $1..$7.
std::vector<Param> attempt_params(const core::Attempt& a) {
  return {a.run_id, a.number, a.session_index, a.index_in_session, a.started_at, a.ended_at, a.outcome};
}

std::vector<core::Session> read_sessions(const Result& result) {
  std::vector<core::Session> out;
  out.reserve(static_cast<std::size_t>(result.rows()));
  for (int i = 0; i < result.rows(); ++i) out.push_back(read_session(result.row(i)));
  return out;
}

}  // namespace

void SessionRepository::insert(const core::Session& session) {
  c_.query("INSERT INTO sessions (" + std::string(session_columns) + ") VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)",
           session_params(session));
}

void SessionRepository::update(const core::Session& session) {
  c_.query("UPDATE sessions SET status=$3, started_at=$4, ended_at=$5, backend_session_id=$6, end_reason=$7, "
           "prompt=$8, ended_by=$9, source_json=$10 WHERE run_id=$1 AND session_index=$2",
           session_params(session));
}

std::optional<core::Session> SessionRepository::get(std::string_view run_id, int index) {
  auto result = c_.query("SELECT " + std::string(session_columns) +
                             " FROM sessions WHERE run_id = $1 AND session_index = $2",
                         {run_id, index});
  if (result.rows() == 0) return std::nullopt;
  return read_session(result.row(0));
}

std::vector<core::Session> SessionRepository::list(std::string_view run_id) {
  return read_sessions(c_.query(
      "SELECT " + std::string(session_columns) + " FROM sessions WHERE run_id = $1 ORDER BY session_index", {run_id}));
}

std::map<std::string, core::Session> SessionRepository::latest(const std::vector<std::string>& run_ids) {
  std::map<std::string, core::Session> out;
  if (run_ids.empty()) return out;
  // The prompt is left out (list pages do not show it); the attempt range is added.
  auto result = c_.query("SELECT s.run_id, s.session_index, s.status, s.started_at, s.ended_at, s.backend_session_id, "
                         "s.end_reason, '', s.ended_by, s.source_json, " + std::string(store::session_attempt_range) +
                         " FROM sessions s JOIN runs r ON r.id = s.run_id "
                         "AND s.session_index = r.session_count - 1 WHERE s.run_id = ANY($1::text[])",
                         {text_array(run_ids)});
  for (int i = 0; i < result.rows(); ++i) {
    const auto row = result.row(i);
    auto session = read_session(row);
    session.first_attempt_number = static_cast<int>(row[10].int64());
    session.last_attempt_number = static_cast<int>(row[11].int64());
    session.attempt_count = static_cast<int>(row[12].int64());
    out.emplace(session.run_id, std::move(session));
  }
  return out;
}

void SessionRepository::insert_attempt(const core::Attempt& attempt) {
  c_.query("INSERT INTO attempts (" + std::string(attempt_columns) + ") VALUES ($1,$2,$3,$4,$5,$6,$7)",
           attempt_params(attempt));
}

void SessionRepository::update_attempt(const core::Attempt& attempt) {
  c_.query("UPDATE attempts SET session_index=$3, index_in_session=$4, started_at=$5, ended_at=$6, outcome=$7 "
           "WHERE run_id=$1 AND attempt_number=$2",
           attempt_params(attempt));
}

std::vector<core::Attempt> SessionRepository::list_attempts(std::string_view run_id) {
  auto result = c_.query("SELECT " + std::string(attempt_columns) +
                             " FROM attempts WHERE run_id = $1 ORDER BY attempt_number",
                         {run_id});
  std::vector<core::Attempt> out;
  out.reserve(static_cast<std::size_t>(result.rows()));
  for (int i = 0; i < result.rows(); ++i) out.push_back(read_attempt(result.row(i)));
  return out;
}

void SessionRepository::remove_all(std::string_view run_id) {
  c_.query("DELETE FROM attempts WHERE run_id = $1", {run_id});
  c_.query("DELETE FROM sessions WHERE run_id = $1", {run_id});
}

}  // namespace agentry::pg_store
