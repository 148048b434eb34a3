#include "store_copy_fixture.hpp"

#include "store/run_start_repository.hpp"

#include "pg_store/migrations.hpp"
#include "store/attachment_repository.hpp"
#include "store/dependency_repository.hpp"
#include "store/event_repository.hpp"
#include "store/hook_audit_repository.hpp"
#include "store/notification_repository.hpp"
#include "store/parent_notification_repository.hpp"
#include "store/project_trust_repository.hpp"
#include "store/trigger_delivery_repository.hpp"
#include "store/usage_repository.hpp"
#include "store/queued_message_repository.hpp"
#include "store/run_repository.hpp"
#include "store/run_start_repository.hpp"
#include "store/run_token_repository.hpp"
#include "store/schedule_repository.hpp"
#include "store/session_repository.hpp"
#include "store/task_repository.hpp"

#include <algorithm>
#include <stdexcept>

namespace agentry::store_copy {
namespace {

using sqlite_store::testing::make_run;
using sqlite_store::testing::make_task;
using sqlite_store::testing::write;

constexpr const char* at = "2024-03-01T10:00:00.000Z";

// Text that COPY must escape, and text that is not ASCII.
const std::string awkward = "line one\nline two\ttabbed \\ back\\slash\r ünïcödé ✓";

core::Run run_number(int i) {
  auto run = make_run("run-" + std::to_string(i), "2024-01-0" + std::to_string(1 + i % 9) + "T00:00:00.000Z");
  run.pinned = i % 2 == 0;
  run.archived = i % 3 == 1;
  if (run.archived) run.archived_at = at;
  if (i > 0) run.parent_run_id = "run-0";
  if (i % 2 == 1) run.name = "name " + std::to_string(i);
  run.note = std::nullopt;
  run.backend_session_id = i % 2 == 0 ? std::optional<std::string>("thread-" + std::to_string(i)) : std::nullopt;
  return run;
}

void write_sessions(store::Transaction& c, const std::string& id) {
  c.sessions().insert({id, 1, "success", at, std::string(at), std::nullopt, "done", awkward, "agent", {}});
  c.sessions().insert({id, 2, "running", at, std::nullopt, "thread", "", "again", "", {{"kind", "resume"}}});
  c.sessions().insert_attempt({id, 1, 1, 1, at, std::string(at), "success"});
  c.sessions().insert_attempt({id, 2, 2, 1, at, std::nullopt, ""});
  auto task = make_task(id, "plan", 0, core::TaskStatus::completed);
  task.notes = awkward;
  c.tasks().insert(task);
  c.tasks().insert(make_task(id, "build", 1));
}

void write_events(store::Transaction& c, const std::string& id, int events) {
  for (int n = 0; n < events; ++n) {
    core::TimelineEvent e{id, 0, "message", n % 2 == 0 ? std::optional<int>(1) : std::nullopt, at,
                          {{"text", awkward + std::to_string(n)}}, false, "", {}};
    c.timeline().append(e);
  }
  core::AuditEvent a{id, 0, "run.initialized", "api", at, {{"note", awkward}}};
  c.audit().append(a);
  c.audit().append(a);
}

void write_neighbours(store::Transaction& c, const std::string& id, int i) {
  // Ids that sort against insertion order: only rowid (seq) order is right.
  c.queued_messages().insert({"msg-z-" + id, id, "first " + awkward, {{"actor", "api"}}, at});
  c.queued_messages().insert({"msg-a-" + id, id, "second", {}, at});
  c.dependencies().insert(id, {core::DependencyType::group, "group-x", at});
  if (i > 0) c.dependencies().insert(id, {core::DependencyType::run, "run-0", at});
  core::Schedule schedule;
  schedule.run_id = id;
  schedule.spec.at_ms = 1'800'000'000'000;
  schedule.enabled = i % 2 == 1;
  schedule.next_ms = i % 2 == 1 ? std::optional<std::int64_t>(1'800'000'000'000) : std::nullopt;
  schedule.updated_at = at;
  c.schedules().put(schedule);
  c.attachments().insert({"att-" + id, id, "group-" + id, "spec.pdf", std::string(64, 'a'), 1234, "application/pdf", at});
  c.run_tokens().insert("sha-" + id, id, at);
  if (i > 0) c.parent_notifications().upsert({id, 1, "run-0", "pending", "", "", at, at, std::nullopt});
  // A start waiting for a member: the message is NULL for one, and automatic a boolean.
  c.run_starts().put({id, i % 2 == 0 ? std::optional<std::string>(awkward) : std::nullopt, "start", "api", i % 2 == 1,
                      at});
}

void write_records(store::Transaction& c, const std::string& id) {
  for (int target = 0; target < 2; ++target) {
    c.outbox().insert({0, id, "run.finished", "key-" + id, target, "{\"url\":\"http://x\"}", "{}", "pending", 0,
                       1'700'000'000'000, "", at, at, std::nullopt});
  }
  core::HookAudit audit;
  audit.hook_id = "lint";
  audit.phase = core::HookPhase::after_attempt;
  audit.outcome = "failed";
  audit.exit_code = 2;
  audit.stderr_excerpt = awkward;
  audit.output_truncated = true;
  audit.created_at = at;
  core::HookAudit quiet = audit;
  quiet.exit_code = std::nullopt;
  quiet.output_truncated = false;
  c.hook_audits().append(id, {audit, quiet});
  c.runs().set_diffstat(id, core::DiffStat{3, 10, 2, at});
  c.runs().set_initial_snapshot(id, "{\"snapshot\":true}");
  c.worktrees().set(id, "{\"path\":\"/w/" + id + "\"}");
}

}  // namespace

void PgStoreCopy::SetUp() {
  PostgresTest::SetUp();
}

void PgStoreCopy::TearDown() {
  pg_.reset();  // before the database is dropped
  PostgresTest::TearDown();
}

void PgStoreCopy::populate(int runs, int events) {
  auto db = sqlite_store::testing::open_database(source());
  for (int i = 0; i < runs; ++i) {
    write(*db, [&](store::Transaction& c) {
      const auto run = run_number(i);
      c.runs().insert(run);
      write_sessions(c, run.id);
      write_events(c, run.id, events);
      write_neighbours(c, run.id, i);
      write_records(c, run.id);
    });
  }
  write(*db, [&](store::Transaction& c) {
    c.project_trust().put({"/work/project", "digest", at, "cli"});
    c.project_trust().put({"/work/other", "digest2", at, "api"});
    c.trigger_deliveries().claim("github-issue", "delivery-1", run_number(0).id, at);
    c.trigger_deliveries().claim("github-issue", "delivery-2", run_number(1 % runs).id, at);
    store::UsageIncrement used;
    used.run_id = run_number(0).id;
    used.attempt_number = 1;
    used.day = "2026-12-01";
    used.usage.model = "example-model";
    used.usage.tokens.input = 120;
    used.usage.tokens.output = 30;
    c.usage().add(used);
  });
}

core::Result<CopyReport> PgStoreCopy::copy(Progress progress) {
  return copy_into_postgresql({source(), database_uri(), std::move(progress)});
}

std::vector<std::string> PgStoreCopy::sqlite_columns(const std::string& table) {
  auto c = sqlite_store::Connection::open(source(), true);
  auto s = c.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid");
  s.bind(1, table);
  std::vector<std::string> names;
  while (s.step()) names.push_back(s.column_text(0));
  if (names.empty()) throw std::runtime_error("no table " + table + " in the SQLite store");
  return names;
}

std::vector<Row> PgStoreCopy::sqlite_rows(const std::string& table) {
  auto c = sqlite_store::Connection::open(source(), true);
  auto s = c.prepare("SELECT * FROM \"" + table + "\"");
  const auto width = static_cast<int>(sqlite_columns(table).size());
  std::vector<Row> rows;
  while (s.step()) {
    Row row;
    for (int i = 0; i < width; ++i) row.push_back(s.column_optional_text(i));
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<Row> PgStoreCopy::pg_rows(const std::string& table) {
  auto booleans = pg().query(
      "SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND data_type = 'boolean'", {table});
  auto is_boolean = [&](const std::string& column) {
    for (int i = 0; i < booleans.rows(); ++i)
      if (booleans.row(i)[0].text() == column) return true;
    return false;
  };
  std::string sql;
  for (const auto& column : sqlite_columns(table))
    sql += (sql.empty() ? "SELECT " : ", ") + ("\"" + column + "\"") + (is_boolean(column) ? "::int" : "");
  auto result = pg().query(sql + " FROM \"" + table + "\"");
  std::vector<Row> rows;
  for (int r = 0; r < result.rows(); ++r) {
    Row row;
    for (int i = 0; i < result.columns(); ++i) row.push_back(result.row(r)[i].optional_text());
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

void PgStoreCopy::sqlite_exec(const std::string& sql) {
  auto c = sqlite_store::Connection::open(source(), false);
  c.exec("PRAGMA foreign_keys = OFF");
  c.exec(sql);
}

std::int64_t PgStoreCopy::sqlite_int(const std::string& sql) {
  auto c = sqlite_store::Connection::open(source(), true);
  return sqlite_store::testing::query_int(c, sql);
}

pg_store::Connection& PgStoreCopy::pg() {
  if (!pg_) {
    auto c = pg_store::Connection::open(database_uri());
    if (!c) throw std::runtime_error(c.error().message);
    pg_.emplace(std::move(*c));
  }
  return *pg_;
}

std::int64_t PgStoreCopy::pg_int(const std::string& sql) { return pg().query(sql).row(0)[0].int64(); }

void PgStoreCopy::migrate_target() {
  if (auto migrated = pg_store::migrate(pg()); !migrated) throw std::runtime_error(migrated.error().message);
}

std::int64_t PgStoreCopy::pg_rows_everywhere() {
  std::int64_t total = 0;
  for (const auto& table : every_table) total += pg_int("SELECT count(*) FROM " + table);
  return total;
}

}  // namespace agentry::store_copy
