#include "pg_store/repositories.hpp"

namespace agentry::pg_store {
void DaemonRepository::upsert(const core::DaemonMember& m) {
  c_.query("INSERT INTO daemons (id, name, host, pid, advertise_url, labels, capacity, live_runs, version, "
           "started_at, workspace_roots, heartbeat_ms) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11," +
               std::string(now_ms_sql) +
               ") ON CONFLICT (id) DO UPDATE SET name=$2, host=$3, pid=$4, advertise_url=$5, labels=$6, "
               "capacity=$7, live_runs=$8, version=$9, started_at=$10, workspace_roots=$11, "
               "heartbeat_ms=excluded.heartbeat_ms",
           {m.id, m.name, m.host, m.pid, m.advertise_url, core::join_labels(m.labels), m.capacity, m.live_runs,
            m.version, m.started_at, core::join_roots(m.workspace_roots)});
}

std::vector<core::DaemonMember> DaemonRepository::list() {
  auto result = c_.query("SELECT id, name, host, pid, advertise_url, labels, capacity, live_runs, version, "
                         "started_at, heartbeat_ms, " +
                         std::string(now_ms_sql) + " - heartbeat_ms, workspace_roots FROM daemons ORDER BY name, id");
  std::vector<core::DaemonMember> out;
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    core::DaemonMember m;
    m.id = row[0].text();
    m.name = row[1].text();
    m.host = row[2].text();
    m.pid = row[3].int64();
    m.advertise_url = row[4].text();
    m.labels = core::split_labels(row[5].text());
    m.capacity = row[6].int64();
    m.live_runs = row[7].int64();
    m.version = row[8].text();
    m.started_at = row[9].text();
    m.heartbeat_ms = row[10].int64();
    m.heartbeat_age_ms = row[11].int64();
    m.workspace_roots = core::split_roots(row[12].text());
    out.push_back(std::move(m));
  }
  return out;
}

bool DaemonRepository::remove(std::string_view id) {
  return c_.query("DELETE FROM daemons WHERE id = $1", {id}).affected_rows() > 0;
}

int DaemonRepository::remove_silent(std::int64_t age_ms) {
  return static_cast<int>(
      c_.query("DELETE FROM daemons WHERE heartbeat_ms < " + std::string(now_ms_sql) + " - $1::bigint", {age_ms})
          .affected_rows());
}

}  // namespace agentry::pg_store
