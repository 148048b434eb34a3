#include "pg_store/repositories.hpp"

namespace agentry::pg_store {
namespace {

const std::string now_ms(now_ms_sql);
const std::string lease_columns = "run_id, owner, held, epoch, expires_ms, held AND expires_ms < " + now_ms;

std::vector<store::RunLease> leases_of(const Result& result) {
  std::vector<store::RunLease> out;
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    out.push_back(store::RunLease{row[0].text(), row[1].text(), row[2].boolean(), row[3].int64(), row[4].int64(), row[5].boolean()});
  }
  return out;
}

}  // namespace

std::int64_t LeaseRepository::acquire(const std::string& run_id, const std::string& owner, std::int64_t ttl_ms) {
  return c_
      .query("INSERT INTO run_leases AS l (run_id, owner, epoch, expires_ms) VALUES ($1, $2, 1, " + now_ms +
                 " + $3::bigint) ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner, held = TRUE, epoch = l.epoch + 1, "
                 "expires_ms = excluded.expires_ms RETURNING epoch",
             {run_id, owner, ttl_ms})
      .row(0)[0]
      .int64();
}

std::optional<std::int64_t> LeaseRepository::take_over(const std::string& run_id, const std::string& from,
                                                       std::int64_t epoch, const std::string& owner, std::int64_t ttl_ms,
                                                       bool only_if_expired) {
  auto result = c_.query("UPDATE run_leases SET owner = $4, epoch = epoch + 1, expires_ms = " + now_ms +
                             " + $5::bigint WHERE run_id = $1 AND owner = $2 AND held AND epoch = $3::bigint "
                             "AND (NOT $6::boolean OR expires_ms < " + now_ms + ") RETURNING epoch",
                         {run_id, from, epoch, owner, ttl_ms, only_if_expired});
  if (result.rows() == 0) return std::nullopt;
  return result.row(0)[0].int64();
}

bool LeaseRepository::hold(const std::string& run_id, const std::string& owner, std::int64_t epoch) {
  // FOR UPDATE: a takeover waits for this transaction, then finds the row changed and
  // retries (REPEATABLE READ), by when this write has committed under the lease.
  return c_.query("SELECT 1 FROM run_leases WHERE run_id = $1 AND owner = $2 AND (held OR epoch = $3::bigint) "
                  "FOR UPDATE",
                  {run_id, owner, epoch})
             .rows() == 1;
}

std::vector<store::RunLease> LeaseRepository::renew(const std::string& owner, const std::vector<std::string>& run_ids,
                                                   std::int64_t ttl_ms) {
  if (run_ids.empty()) return {};
  return leases_of(c_.query("UPDATE run_leases SET expires_ms = " + now_ms +
                                " + $3::bigint WHERE owner = $1 AND held AND run_id = ANY($2::text[]) RETURNING " + lease_columns,
                            {owner, text_array(run_ids), ttl_ms}));
}

void LeaseRepository::release(const std::string& run_id) {
  c_.query("UPDATE run_leases SET held = FALSE, expires_ms = 0 WHERE run_id = $1 AND held", {run_id});
}

int LeaseRepository::expire_all(const std::string& owner) {
  return static_cast<int>(
      c_.query("UPDATE run_leases SET expires_ms = 0 WHERE owner = $1 AND held", {owner}).affected_rows());
}

std::int64_t LeaseRepository::held_by(const std::string& owner) {
  return c_.query("SELECT count(*) FROM run_leases WHERE owner = $1 AND held", {owner}).row(0)[0].int64();
}

std::map<std::string, std::int64_t> LeaseRepository::held_counts() {
  auto result = c_.query("SELECT owner, count(*) FROM run_leases WHERE held GROUP BY owner");
  std::map<std::string, std::int64_t> out;
  for (int i = 0; i < result.rows(); ++i) out[result.row(i)[0].text()] = result.row(i)[1].int64();
  return out;
}

std::optional<store::RunLease> LeaseRepository::get(const std::string& run_id) {
  auto leases = leases_of(c_.query("SELECT " + lease_columns + " FROM run_leases WHERE run_id = $1", {run_id}));
  if (leases.empty()) return std::nullopt;
  return std::move(leases.front());
}

std::vector<store::RunLease> LeaseRepository::expired() {
  return leases_of(c_.query("SELECT " + lease_columns + " FROM run_leases WHERE held AND expires_ms < " +
                            now_ms + " ORDER BY run_id"));
}

std::vector<store::DrivenRun> LeaseRepository::driven_runs() {
  auto result = c_.query("SELECT r.id, r.controller_id, l.owner, l.held, l.epoch, l.expires_ms, l.held AND l.expires_ms < " +
                         now_ms + " FROM runs r LEFT JOIN run_leases l ON l.run_id = r.id "
                                  "WHERE r.status = 'running' AND r.backend <> 'passive' ORDER BY r.id");
  std::vector<store::DrivenRun> out;
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    store::DrivenRun run{row[0].text(), row[1].text(), std::nullopt};
    if (!row[2].is_null())
      run.lease = store::RunLease{run.run_id, row[2].text(), row[3].boolean(), row[4].int64(), row[5].int64(),
                                  row[6].boolean()};
    out.push_back(std::move(run));
  }
  return out;
}

}  // namespace agentry::pg_store
