#include "sqlite_store/repositories.hpp"
#include "sqlite_store/sql_lists.hpp"

namespace agentry::sqlite_store {
namespace {

const std::string now_ms(now_ms_sql);
const std::string lease_columns = "run_id, owner, held, epoch, expires_ms, held AND expires_ms < " + now_ms;

std::vector<store::RunLease> leases_of(Statement& s) {
  std::vector<store::RunLease> out;
  while (s.step())
    out.push_back(store::RunLease{s.column_text(0), s.column_text(1), s.column_bool(2), s.column_int64(3),
                                  s.column_int64(4), s.column_bool(5)});
  return out;
}

}  // namespace

std::int64_t LeaseRepository::acquire(const std::string& run_id, const std::string& owner, std::int64_t ttl_ms) {
  auto s = c_.prepare("INSERT INTO run_leases (run_id, owner, epoch, expires_ms) VALUES (?1, ?2, 1, " + now_ms +
                      " + ?3) ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner, held = TRUE, epoch = epoch + 1, "
                      "expires_ms = excluded.expires_ms RETURNING epoch");
  s.bind(1, run_id).bind(2, owner).bind(3, ttl_ms);
  s.step();
  return s.column_int64(0);
}

std::optional<std::int64_t> LeaseRepository::take_over(const std::string& run_id, const std::string& from,
                                                       std::int64_t epoch, const std::string& owner, std::int64_t ttl_ms,
                                                       bool only_if_expired) {
  auto s = c_.prepare("UPDATE run_leases SET owner = ?4, epoch = epoch + 1, expires_ms = " + now_ms +
                      " + ?5 WHERE run_id = ?1 AND owner = ?2 AND held AND epoch = ?3 AND (NOT ?6 OR expires_ms < " +
                      now_ms + ") RETURNING epoch");
  s.bind(1, run_id).bind(2, from).bind(3, epoch).bind(4, owner).bind(5, ttl_ms).bind(6, only_if_expired);
  if (!s.step()) return std::nullopt;
  return s.column_int64(0);
}

bool LeaseRepository::hold(const std::string& run_id, const std::string& owner, std::int64_t epoch) {
  // One writer at a time holds the whole database: the check lasts until the commit.
  auto s = c_.prepare("SELECT 1 FROM run_leases WHERE run_id = ?1 AND owner = ?2 AND (held OR epoch = ?3)");
  s.bind(1, run_id).bind(2, owner).bind(3, epoch);
  return s.step();
}

std::vector<store::RunLease> LeaseRepository::renew(const std::string& owner, const std::vector<std::string>& run_ids,
                                                   std::int64_t ttl_ms) {
  if (run_ids.empty()) return {};
  auto s = c_.prepare("UPDATE run_leases SET expires_ms = " + now_ms +
                      " + ?3 WHERE owner = ?1 AND held AND run_id IN (SELECT value FROM json_each(?2)) RETURNING " +
                      lease_columns);
  s.bind(1, owner).bind(2, json_array_text(run_ids)).bind(3, ttl_ms);
  return leases_of(s);
}

void LeaseRepository::release(const std::string& run_id) {
  auto s = c_.prepare("UPDATE run_leases SET held = FALSE, expires_ms = 0 WHERE run_id = ?1 AND held");
  s.bind(1, run_id);
  s.run();
}

int LeaseRepository::expire_all(const std::string& owner) {
  auto s = c_.prepare("UPDATE run_leases SET expires_ms = 0 WHERE owner = ?1 AND held");
  s.bind(1, owner);
  s.run();
  return static_cast<int>(c_.changes());
}

std::int64_t LeaseRepository::held_by(const std::string& owner) {
  auto s = c_.prepare("SELECT count(*) FROM run_leases WHERE owner = ?1 AND held");
  s.bind(1, owner);
  s.step();
  return s.column_int64(0);
}

std::map<std::string, std::int64_t> LeaseRepository::held_counts() {
  auto s = c_.prepare("SELECT owner, count(*) FROM run_leases WHERE held GROUP BY owner");
  std::map<std::string, std::int64_t> out;
  while (s.step()) out[s.column_text(0)] = s.column_int64(1);
  return out;
}

std::optional<store::RunLease> LeaseRepository::get(const std::string& run_id) {
  auto s = c_.prepare("SELECT " + lease_columns + " FROM run_leases WHERE run_id = ?1");
  s.bind(1, run_id);
  auto leases = leases_of(s);
  if (leases.empty()) return std::nullopt;
  return std::move(leases.front());
}

std::vector<store::RunLease> LeaseRepository::expired() {
  auto s = c_.prepare("SELECT " + lease_columns + " FROM run_leases WHERE held AND expires_ms < " + now_ms +
                      " ORDER BY run_id");
  return leases_of(s);
}

std::vector<store::DrivenRun> LeaseRepository::driven_runs() {
  auto s = c_.prepare("SELECT r.id, r.controller_id, l.owner, l.held, l.epoch, l.expires_ms, l.held AND l.expires_ms < " +
                      now_ms + " FROM runs r LEFT JOIN run_leases l ON l.run_id = r.id "
                               "WHERE r.status = 'running' AND r.backend <> 'passive' ORDER BY r.id");
  std::vector<store::DrivenRun> out;
  while (s.step()) {
    store::DrivenRun run{s.column_text(0), s.column_text(1), std::nullopt};
    if (!s.column_is_null(2))
      run.lease = store::RunLease{run.run_id, s.column_text(2), s.column_bool(3), s.column_int64(4),
                                  s.column_int64(5), s.column_bool(6)};
    out.push_back(std::move(run));
  }
  return out;
}

}  // namespace agentry::sqlite_store
