#include "sqlite_store/repositories.hpp"

namespace agentry::sqlite_store {
void DaemonRepository::upsert(const core::DaemonMember& m) {
  auto s = c_.prepare(
      "INSERT INTO daemons (id, name, host, pid, advertise_url, labels, capacity, live_runs, version, started_at, "
      "workspace_roots, heartbeat_ms) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11," +
      std::string(now_ms_sql) +
      ") ON CONFLICT (id) DO UPDATE SET name=?2, host=?3, pid=?4, advertise_url=?5, labels=?6, capacity=?7, "
      "live_runs=?8, version=?9, started_at=?10, workspace_roots=?11, heartbeat_ms=excluded.heartbeat_ms");
  s.bind(1, m.id).bind(2, m.name).bind(3, m.host).bind(4, m.pid).bind(5, m.advertise_url);
  s.bind(6, core::join_labels(m.labels)).bind(7, m.capacity).bind(8, m.live_runs).bind(9, m.version);
  s.bind(10, m.started_at).bind(11, core::join_roots(m.workspace_roots));
  s.run();
}

std::vector<core::DaemonMember> DaemonRepository::list() {
  auto s = c_.prepare("SELECT id, name, host, pid, advertise_url, labels, capacity, live_runs, version, started_at, "
                      "heartbeat_ms, " + std::string(now_ms_sql) + " - heartbeat_ms, workspace_roots FROM daemons ORDER BY name, id");
  std::vector<core::DaemonMember> out;
  while (s.step()) {
    core::DaemonMember m;
    m.id = s.column_text(0);
    m.name = s.column_text(1);
    m.host = s.column_text(2);
    m.pid = s.column_int64(3);
    m.advertise_url = s.column_text(4);
    m.labels = core::split_labels(s.column_text(5));
    m.capacity = s.column_int64(6);
    m.live_runs = s.column_int64(7);
    m.version = s.column_text(8);
    m.started_at = s.column_text(9);
    m.heartbeat_ms = s.column_int64(10);
    m.heartbeat_age_ms = s.column_int64(11);
    m.workspace_roots = core::split_roots(s.column_text(12));
    out.push_back(std::move(m));
  }
  return out;
}

bool DaemonRepository::remove(std::string_view id) {
  auto s = c_.prepare("DELETE FROM daemons WHERE id = ?");
  s.bind(1, id);
  s.run();
  return c_.changes() > 0;
}

int DaemonRepository::remove_silent(std::int64_t age_ms) {
  auto s = c_.prepare("DELETE FROM daemons WHERE heartbeat_ms < " + std::string(now_ms_sql) + " - ?");
  s.bind(1, age_ms);
  s.run();
  return static_cast<int>(c_.changes());
}

}  // namespace agentry::sqlite_store
