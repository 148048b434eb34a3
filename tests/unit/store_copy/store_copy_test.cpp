// What `agentry store copy` moves: every table, row for row and value for value, with
// the identities' sequences moved on, and the counts it reports.

#include "store_copy_fixture.hpp"

#include "pg_store/migrations.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace agentry::store_copy {
namespace {

CopyReport copied(core::Result<CopyReport> report) {
  if (!report) throw std::runtime_error("the copy failed: " + report.error().message);
  return std::move(*report);
}

TEST_F(PgStoreCopy, EveryTableArrivesRowForRowAndTheReportCountsThem) {
  populate(3, 5);
  const auto report = copied(copy());
  EXPECT_TRUE(report.committed);
  EXPECT_EQ(report.mismatch(), nullptr);
  EXPECT_EQ(report.schema_version, pg_store::latest_schema_version());
  EXPECT_EQ(report.source, source().string());
  std::vector<std::string> tables;
  for (const auto& t : report.tables) {
    tables.push_back(t.table);
    EXPECT_EQ(t.source_rows, t.target_rows) << t.table;
    EXPECT_GT(t.source_rows, 0) << t.table << " has no row: the test does not cover it";
  }
  std::sort(tables.begin(), tables.end());
  EXPECT_EQ(tables, every_table);
  // Parents first: each table after every table its foreign keys name.
  auto position = [&](const std::string& table) {
    return std::find_if(report.tables.begin(), report.tables.end(), [&](const auto& t) { return t.table == table; }) -
           report.tables.begin();
  };
  auto references = pg().query(
      "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint WHERE contype = 'f'");
  ASSERT_GT(references.rows(), 10);
  for (int i = 0; i < references.rows(); ++i)
    EXPECT_LT(position(references.row(i)[1].text()), position(references.row(i)[0].text()))
        << references.row(i)[0].text() << " references " << references.row(i)[1].text();
  EXPECT_EQ(report.rows(), pg_rows_everywhere());
  for (const auto& table : every_table) {
    const auto expected = sqlite_rows(table);
    const auto actual = pg_rows(table);
    ASSERT_EQ(expected.size(), actual.size()) << table;
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(expected[i], actual[i]) << table << " row " << i;
  }
}

TEST_F(PgStoreCopy, BooleansNullsCursorsAndTextArriveAsTheyWere) {
  populate(3, 5);
  copied(copy());
  // Booleans are booleans, not 0/1 integers.
  EXPECT_EQ(pg_int("SELECT count(*) FROM runs WHERE pinned"), 2);  // run-0, run-2
  EXPECT_EQ(pg_int("SELECT count(*) FROM runs WHERE archived"), 1);
  EXPECT_EQ(pg_int("SELECT count(*) FROM schedules WHERE enabled"), 1);
  EXPECT_EQ(pg_int("SELECT count(*) FROM hook_audits WHERE truncated"), 3);
  // NULLs stay NULL and empty text stays empty.
  EXPECT_EQ(pg_int("SELECT count(*) FROM runs WHERE note IS NULL"), 3);
  EXPECT_EQ(pg_int("SELECT count(*) FROM runs WHERE parent_run_id IS NULL"), 1);
  EXPECT_EQ(pg_int("SELECT count(*) FROM hook_audits WHERE exit_code IS NULL"), 3);
  EXPECT_EQ(pg_int("SELECT count(*) FROM sessions WHERE end_reason = ''"), 3);
  // The runs' next cursors are columns: appending after the copy continues the sequence.
  EXPECT_EQ(pg_int("SELECT next_timeline_cursor FROM runs WHERE id = 'run-1'"), 6);
  EXPECT_EQ(pg_int("SELECT next_audit_cursor FROM runs WHERE id = 'run-1'"), 3);
  EXPECT_EQ(pg_int("SELECT max(last_cursor) FROM timeline_batches WHERE run_id = 'run-1'"), 5);
  // Text that COPY escapes arrives byte for byte.
  EXPECT_EQ(pg().query("SELECT notes FROM tasks WHERE run_id = 'run-0' AND task_id = 'plan'").row(0)[0].text(),
            "line one\nline two\ttabbed \\ back\\slash\r ünïcödé ✓");
}

TEST_F(PgStoreCopy, QueuedMessagesKeepTheirOrderAsSeq) {
  populate(2, 1);
  copied(copy());
  auto c = sqlite_store::Connection::open(source(), true);
  auto s = c.prepare("SELECT id, rowid FROM queued_messages ORDER BY rowid");
  auto pg_order = pg().query("SELECT id, seq FROM queued_messages ORDER BY seq");
  int row = 0;
  while (s.step()) {
    ASSERT_LT(row, pg_order.rows());
    EXPECT_EQ(pg_order.row(row)[0].text(), s.column_text(0));
    EXPECT_EQ(pg_order.row(row)[1].int64(), s.column_int64(1));
    ++row;
  }
  EXPECT_EQ(row, pg_order.rows());
  EXPECT_EQ(pg_order.row(0)[0].text(), "msg-z-run-0");  // inserted first, though its id sorts last
}

TEST_F(PgStoreCopy, NewIdsContinueAfterEveryIdSqliteHandedOut) {
  populate(3, 1);
  // The newest outbox row is gone; AUTOINCREMENT never hands its id out again, and nor may PostgreSQL.
  const auto last_outbox = sqlite_int("SELECT max(id) FROM notification_outbox");
  sqlite_exec("DELETE FROM notification_outbox WHERE id = " + std::to_string(last_outbox));
  const auto last_hook = sqlite_int("SELECT max(id) FROM hook_audits");
  const auto last_seq = sqlite_int("SELECT max(rowid) FROM queued_messages");
  copied(copy());

  auto outbox = pg().query(
      "INSERT INTO notification_outbox (run_id, event, idempotency_key, target_index, target_json, payload_json, "
      "next_attempt_ms, created_at, updated_at) VALUES ('run-0', 'run.finished', 'new', 0, '{}', '{}', 0, 'a', 'a') "
      "RETURNING id");
  EXPECT_EQ(outbox.row(0)[0].int64(), last_outbox + 1);
  auto hook = pg().query(
      "INSERT INTO hook_audits (run_id, hook_id, phase, outcome, duration_ms, created_at) "
      "VALUES ('run-0', 'h', 'prepare', 'ok', 1, 'a') RETURNING id");
  EXPECT_EQ(hook.row(0)[0].int64(), last_hook + 1);
  auto queued = pg().query(
      "INSERT INTO queued_messages (id, run_id, text, created_at) VALUES ('new', 'run-0', 't', 'a') RETURNING seq");
  EXPECT_EQ(queued.row(0)[0].int64(), last_seq + 1);
}

TEST_F(PgStoreCopy, ProgressIsToldOfEveryTableAndItsRows) {
  populate(3, 600);  // timeline_batches (a row per event appended alone) passes the 1,000 rows between reports
  std::map<std::string, std::int64_t> done;
  int partial = 0;
  copied(copy([&](const std::string& table, std::int64_t rows, bool complete) {
    if (complete) done[table] = rows;
    else ++partial;
  }));
  EXPECT_EQ(done.size(), every_table.size());
  EXPECT_EQ(done["timeline_batches"], 1800);
  EXPECT_EQ(done["runs"], 3);
  EXPECT_GE(partial, 1);
}

TEST_F(PgStoreCopy, AnEmptyHomeCopiesIntoAnEmptySchema) {
  sqlite_store::testing::open_database(source()).reset();
  const auto report = copied(copy());
  EXPECT_TRUE(report.committed);
  EXPECT_EQ(report.rows(), 0);
  EXPECT_EQ(report.tables.size(), every_table.size());
  EXPECT_EQ(pg_int("SELECT max(version) FROM schema_migrations"), pg_store::latest_schema_version());
}

}  // namespace
}  // namespace agentry::store_copy
