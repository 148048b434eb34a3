// What `agentry store copy` refuses, and that a copy which fails or does not add up
// leaves the target without a row.

#include "store_copy_fixture.hpp"

#include "pg_store/migrations.hpp"
#include "sqlite_store/migrations.hpp"

#include <gtest/gtest.h>

namespace agentry::store_copy {
namespace {

core::Error refused(core::Result<CopyReport> report) {
  if (report) throw std::runtime_error("the copy was not refused");
  return report.error();
}

bool mentions(const core::Error& error, const std::string& text) {
  return error.message.find(text) != std::string::npos;
}

TEST_F(PgStoreCopy, AMissingSourceIsRefusedAndTheTargetIsNotTouched) {
  const auto error = refused(copy());
  EXPECT_EQ(error.code, core::ErrorCode::not_found);
  EXPECT_TRUE(mentions(error, "no SQLite store at " + source().string())) << error.message;
  EXPECT_FALSE(std::filesystem::exists(source()));
  EXPECT_EQ(pg_int("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"), 0);
}

TEST_F(PgStoreCopy, ATargetThatHoldsARowIsRefusedNamingItsTable) {
  populate(2, 2);
  migrate_target();
  pg().exec("INSERT INTO project_trust VALUES ('/elsewhere', 'd', 'a', 'cli')");
  const auto error = refused(copy());
  EXPECT_EQ(error.code, core::ErrorCode::conflict);
  EXPECT_TRUE(mentions(error, "table project_trust of " + database_uri() + " already holds 1 row")) << error.message;
  EXPECT_EQ(pg_rows_everywhere(), 1);
}

TEST_F(PgStoreCopy, ASecondCopyIntoTheSameDatabaseIsRefused) {
  populate(1, 1);
  ASSERT_TRUE(copy().ok());
  const auto rows = pg_rows_everywhere();
  const auto error = refused(copy());
  EXPECT_EQ(error.code, core::ErrorCode::conflict);
  EXPECT_TRUE(mentions(error, "already holds")) << error.message;
  EXPECT_EQ(pg_rows_everywhere(), rows);
}

TEST_F(PgStoreCopy, AFailureMidwayLeavesTheTargetWithoutARow) {
  populate(3, 3);
  // A row whose run does not exist (SQLite kept it with its foreign keys off): runs and
  // every table before timeline_batches are in when PostgreSQL refuses it.
  sqlite_exec("INSERT INTO timeline_batches VALUES ('ghost', 1, 1, NULL, NULL, '7:message1:a;2:{}')");
  const auto error = refused(copy());
  EXPECT_EQ(error.code, core::ErrorCode::internal);
  EXPECT_TRUE(mentions(error, "foreign key")) << error.message;
  EXPECT_EQ(pg_rows_everywhere(), 0);
  EXPECT_EQ(pg_int("SELECT max(version) FROM schema_migrations"), pg_store::latest_schema_version());  // migrated, and empty
  // Nothing is left half-done: the same home copies once the row is gone.
  sqlite_exec("DELETE FROM timeline_batches WHERE run_id = 'ghost'");
  EXPECT_TRUE(copy().ok());
}

TEST_F(PgStoreCopy, AFlagThatIsNeitherZeroNorOneIsRefusedNamingTheColumn) {
  populate(2, 1);
  sqlite_exec("UPDATE schedules SET enabled = 2 WHERE run_id = 'run-1'");
  const auto error = refused(copy());
  EXPECT_EQ(error.code, core::ErrorCode::validation);
  EXPECT_TRUE(mentions(error, "schedules.enabled holds '2'")) << error.message;
  EXPECT_EQ(pg_rows_everywhere(), 0);
}

TEST_F(PgStoreCopy, CountsThatDoNotMatchRollTheCopyBack) {
  populate(2, 3);
  migrate_target();
  // A trigger on the target that quietly drops one run's events.
  pg().exec(
      "CREATE FUNCTION drop_run_1() RETURNS trigger LANGUAGE plpgsql AS "
      "$$ BEGIN IF NEW.run_id = 'run-1' THEN RETURN NULL; END IF; RETURN NEW; END $$;"
      "CREATE TRIGGER drop_run_1 BEFORE INSERT ON timeline_batches FOR EACH ROW EXECUTE FUNCTION drop_run_1()");
  auto report = copy();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_FALSE(report->committed);
  ASSERT_NE(report->mismatch(), nullptr);
  EXPECT_EQ(report->mismatch()->table, "timeline_batches");  // a row per event: each was its own commit
  EXPECT_EQ(report->mismatch()->source_rows, 6);
  EXPECT_EQ(report->mismatch()->target_rows, 3);
  EXPECT_EQ(pg_rows_everywhere(), 0);
}

TEST_F(PgStoreCopy, ATableOrColumnOnOneSideOnlyIsNamed) {
  populate(1, 1);
  sqlite_exec("CREATE TABLE notes (id TEXT PRIMARY KEY)");
  auto error = refused(copy());
  EXPECT_EQ(error.code, core::ErrorCode::conflict);
  EXPECT_TRUE(mentions(error, "table notes is only in the SQLite store")) << error.message;

  sqlite_exec("DROP TABLE notes");
  pg().exec("CREATE TABLE extra (id text)");
  error = refused(copy());
  EXPECT_TRUE(mentions(error, "table extra is only in PostgreSQL")) << error.message;

  pg().exec("DROP TABLE extra; ALTER TABLE runs ADD COLUMN colour text");
  error = refused(copy());
  EXPECT_TRUE(mentions(error, "column runs.colour is only in PostgreSQL")) << error.message;

  pg().exec("ALTER TABLE runs DROP COLUMN colour");
  sqlite_exec("ALTER TABLE tasks ADD COLUMN colour TEXT");
  error = refused(copy());
  EXPECT_TRUE(mentions(error, "column tasks.colour is only in the SQLite store")) << error.message;
  EXPECT_EQ(pg_rows_everywhere(), 0);
}

TEST_F(PgStoreCopy, ASourceAtAnotherSchemaVersionIsRefused) {
  populate(1, 1);
  const int latest = sqlite_store::latest_schema_version();
  sqlite_exec("PRAGMA user_version = " + std::to_string(latest - 1));
  auto error = refused(copy());
  EXPECT_EQ(error.code, core::ErrorCode::conflict);
  EXPECT_TRUE(mentions(error, "run `agentry store migrate` on it first")) << error.message;
  sqlite_exec("PRAGMA user_version = " + std::to_string(latest + 1));
  error = refused(copy());
  EXPECT_TRUE(mentions(error, "use the agentry that wrote it")) << error.message;
}

TEST_F(PgStoreCopy, AnUnreachableTargetIsAFailureWithoutItsPassword) {
  populate(1, 1);
  auto report = copy_into_postgresql(
      {source(), "postgresql://agentry:s3cret@127.0.0.1:" + std::to_string(cluster().port()) + "/nowhere", {}});
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().code, core::ErrorCode::unavailable);
  EXPECT_TRUE(mentions(report.error(), "postgresql://agentry:***@127.0.0.1")) << report.error().message;
  EXPECT_FALSE(mentions(report.error(), "s3cret")) << report.error().message;
}

}  // namespace
}  // namespace agentry::store_copy
