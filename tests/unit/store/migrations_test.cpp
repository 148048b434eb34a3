#include "sqlite_store/migrations.hpp"

#include "store/event_repository.hpp"
#include "store/run_repository.hpp"
#include "store/session_repository.hpp"
#include "store/task_repository.hpp"
#include "store/timeline_batches.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::open_database;
using testing::connection_of;
using testing::query_int;
using testing::read;
using testing::TempDir;
using testing::write;

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string query_text(Connection& c, const std::string& sql) {
  auto s = c.prepare(sql);
  if (!s.step()) return {};
  return s.column_text(0);
}

TEST(Migrations, ANewDatabaseEndsAtTheLatestVersion) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db");
  EXPECT_GE(latest_schema_version(), 1);
  EXPECT_EQ(read(*db, [](store::Transaction& c) { return query_int(c, "PRAGMA user_version"); }), latest_schema_version());
}

TEST(Migrations, MigrateIsIdempotent) {
  auto c = Connection::open(":memory:", false);
  auto first = migrate(c, "memory");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(query_int(c, "PRAGMA user_version"), latest_schema_version());
  auto second = migrate(c, "memory");
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(query_int(c, "PRAGMA user_version"), latest_schema_version());
}

TEST(Migrations, ADatabaseOfAnEarlierVersionIsUpgradedWithItsRows) {
  auto c = Connection::open(":memory:", false);
  ASSERT_TRUE(migrate(c, "memory", 1).ok());
  EXPECT_EQ(query_int(c, "PRAGMA user_version"), 1);
  c.exec("INSERT INTO runs (id, status, created_at, updated_at, cwd, run_group_id, agent_name, assignment_name, "
         "backend, frozen_json) VALUES ('r1', 'success', 't', 't', '/w', 'r1', 'a', '', 'mock', '{}')");
  c.exec("INSERT INTO sessions (run_id, session_index, status, started_at) VALUES ('r1', 1, 'success', 't')");
  auto upgraded = migrate(c, "memory");
  ASSERT_TRUE(upgraded.ok()) << upgraded.error().message;
  EXPECT_EQ(query_int(c, "PRAGMA user_version"), latest_schema_version());
  EXPECT_EQ(query_text(c, "SELECT ended_by FROM sessions WHERE run_id = 'r1'"), "");
  EXPECT_EQ(query_int(c, "SELECT count(*) FROM runs"), 1);
}

TEST(Migrations, OlderTimelineRowsArePackedAsTheStoreWouldPackThem) {
  auto c = Connection::open(":memory:", false);
  ASSERT_TRUE(migrate(c, "memory", 15).ok());
  c.exec("INSERT INTO runs (id, status, created_at, updated_at, cwd, run_group_id, agent_name, assignment_name, "
         "backend, frozen_json) VALUES ('r1', 'success', 't', 't', '/w', 'r1', 'a', '', 'mock', '{}')");
  c.exec("INSERT INTO timeline_events VALUES ('r1', 1, 'kïnd', 3, '2024-01-01T00:00:00.000Z', '{\"t\":\"ü;1:\"}')");
  c.exec("INSERT INTO timeline_events VALUES ('r1', 2, 'notice', NULL, '2024-01-01T00:00:01.000Z', '{}')");
  ASSERT_TRUE(migrate(c, "memory").ok());
  std::vector<core::TimelineEvent> old{
      {"r1", 1, "kïnd", 3, "2024-01-01T00:00:00.000Z", {}, false, R"({"t":"ü;1:"})", {}},
      {"r1", 2, "notice", std::nullopt, "2024-01-01T00:00:01.000Z", {}, false, "{}", {}}};
  for (const auto& e : old) {
    auto packed = store::pack_timeline_rows({e});
    auto s = c.prepare("SELECT first_cursor, first_attempt IS NULL, events FROM timeline_batches WHERE last_cursor = ?");
    s.bind(1, e.cursor);
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.column_int64(0), e.cursor);
    EXPECT_EQ(s.column_bool(1), !e.attempt_number.has_value());
    EXPECT_EQ(s.column_text(2), packed.at(0).events);
  }
  EXPECT_EQ(query_int(c, "SELECT count(*) FROM sqlite_master WHERE name = 'timeline_events'"), 0);
}

TEST(Migrations, TimelineBatchesMoveToARowidTableWithTheirRowsAndKeys) {
  auto c = Connection::open(":memory:", false);
  ASSERT_TRUE(migrate(c, "memory", 16).ok());
  c.exec("PRAGMA foreign_keys = ON");
  c.exec("INSERT INTO runs (id, status, created_at, updated_at, cwd, run_group_id, agent_name, assignment_name, "
         "backend, frozen_json) VALUES ('r1', 'success', 't', 't', '/w', 'r1', 'a', '', 'mock', '{}')");
  c.exec("INSERT INTO timeline_batches VALUES ('r1', 2, 1, 1, 1, '6:notice1:t1;2:{}6:notice1:t1;2:{}')");
  c.exec("INSERT INTO timeline_batches VALUES ('r1', 3, 3, NULL, NULL, '6:notice1:t;2:{}')");
  ASSERT_TRUE(migrate(c, "memory").ok());
  EXPECT_EQ(query_int(c, "SELECT count(*) FROM timeline_batches WHERE rowid > 0"), 2);  // a rowid table now
  EXPECT_EQ(query_text(c, "SELECT events FROM timeline_batches WHERE last_cursor = 2"),
            "6:notice1:t1;2:{}6:notice1:t1;2:{}");
  EXPECT_EQ(query_int(c, "SELECT first_attempt IS NULL FROM timeline_batches WHERE last_cursor = 3"), 1);
  // The key still refuses a second row at the same cursors, and the rows still go with their run.
  EXPECT_THROW(c.exec("INSERT INTO timeline_batches VALUES ('r1', 3, 3, NULL, NULL, 'x')"), store::StoreError);
  c.exec("DELETE FROM runs WHERE id = 'r1'");
  EXPECT_EQ(query_int(c, "SELECT count(*) FROM timeline_batches"), 0);
}

TEST(Migrations, ConnectionsMigratingOneFileAtOnceApplyEachMigrationOnce) {
  // A CLI and the daemon may open a fresh database together; whoever waits for the
  // write lock must find the migration done rather than apply it again.
  for (int round = 0; round < 10; ++round) {
    TempDir dir;
    const auto path = dir.path() / "agentry.db";
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int i = 0; i < 4; ++i)
      threads.emplace_back([&] {
        auto c = Connection::open(path, false);
        if (!migrate(c, path).ok()) ++failures;
      });
    for (auto& t : threads) t.join();
    EXPECT_EQ(failures.load(), 0) << "round " << round;
    auto c = Connection::open(path, true);
    EXPECT_EQ(query_int(c, "PRAGMA user_version"), latest_schema_version());
  }
}

TEST(Migrations, DatabaseIsInWalMode) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db");
  EXPECT_EQ(read(*db, [](store::Transaction& c) { return query_text(connection_of(c), "PRAGMA journal_mode"); }), "wal");
  // The mode is persistent: a plain connection opened later sees it too.
  db.reset();
  auto plain = Connection::open(dir.path() / "agentry.db", true);
  EXPECT_EQ(query_text(plain, "PRAGMA journal_mode"), "wal");
}

TEST(Migrations, ForeignKeysAreOnForWriterAndReaders) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db");
  std::int64_t writer_fk = -1;
  write(*db, [&](store::Transaction& c) { writer_fk = query_int(c, "PRAGMA foreign_keys"); });
  EXPECT_EQ(writer_fk, 1);
  EXPECT_EQ(read(*db, [](store::Transaction& c) { return query_int(c, "PRAGMA foreign_keys"); }), 1);
  // A task for a run that does not exist is refused.
  EXPECT_THROW(write(*db, [](store::Transaction& c) { c.tasks().insert(testing::make_task("nope", "t1", 0)); }),
               std::runtime_error);
}

TEST(Migrations, DeletingARunCascadesToEverythingItOwns) {
  TempDir dir;
  auto db = open_database(dir.path() / "agentry.db");
  write(*db, [](store::Transaction& c) {
    for (const char* id : {"doomed", "kept"}) {
      c.runs().insert(testing::make_run(id));
      c.tasks().insert(testing::make_task(id, "t1", 0));
      c.sessions().insert(core::Session{id, 0, "running", "2024-01-01T00:00:00.000Z", {}, {}, "", "go"});
      c.sessions().insert_attempt(core::Attempt{id, 1, 0, 0, "2024-01-01T00:00:00.000Z", {}, ""});
      core::AuditEvent audit{id, 0, "run.initialized", "api", "2024-01-01T00:00:00.000Z", {}};
      c.audit().append(audit);
      core::TimelineEvent event{id, 0, "message", 1, "2024-01-01T00:00:00.000Z", {}, false, {}, {}};
      c.timeline().append(event);
    }
  });
  bool removed = false;
  write(*db, [&](store::Transaction& c) { removed = c.runs().remove("doomed"); });
  EXPECT_TRUE(removed);

  for (const char* table : {"runs", "tasks", "sessions", "attempts", "audit_events", "timeline_batches"}) {
    const std::string where = std::string(table) == "runs" ? " WHERE id = " : " WHERE run_id = ";
    EXPECT_EQ(read(*db, [&](store::Transaction& c) { return query_int(c, "SELECT count(*) FROM " + std::string(table) + where + "'doomed'"); }), 0)
        << table;
    EXPECT_EQ(read(*db, [&](store::Transaction& c) { return query_int(c, "SELECT count(*) FROM " + std::string(table) + where + "'kept'"); }), 1)
        << table;
  }
}

TEST(Migrations, ReopeningKeepsTheData) {
  TempDir dir;
  const auto path = dir.path() / "agentry.db";
  {
    auto db = open_database(path);
    write(*db, [](store::Transaction& c) {
      c.runs().insert(testing::make_run("persisted"));
      c.tasks().insert(testing::make_task("persisted", "t1", 0));
    });
  }
  auto db = open_database(path);
  EXPECT_EQ(read(*db, [](store::Transaction& c) { return query_int(c, "PRAGMA user_version"); }), latest_schema_version());
  auto run = read(*db, [](store::Transaction& c) { return c.runs().get("persisted"); });
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->id, "persisted");
  EXPECT_EQ(read(*db, [](store::Transaction& c) { return c.tasks().list("persisted"); }).size(), 1u);
}

void expect_newer_database_refused_and_untouched(const std::string& journal_mode) {
  SCOPED_TRACE("journal_mode " + journal_mode);
  TempDir dir;
  const auto path = dir.path() / "future.db";
  const int future = latest_schema_version() + 1;
  {
    auto c = Connection::open(path, false);
    c.exec("PRAGMA journal_mode = " + journal_mode);
    c.exec("CREATE TABLE from_the_future (x TEXT); INSERT INTO from_the_future VALUES ('keep me')");
    c.exec("PRAGMA user_version = " + std::to_string(future));
  }
  const std::string before = file_bytes(path);
  ASSERT_FALSE(before.empty());

  auto db = SqliteStore::open(path);
  ASSERT_FALSE(db.ok()) << "a database with schema version " << future << " was accepted";
  const std::string& message = db.error().message;
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find(std::to_string(future)), std::string::npos) << message;
  EXPECT_NE(message.find("(" + std::to_string(latest_schema_version()) + ")"), std::string::npos) << message;

  EXPECT_TRUE(file_bytes(path) == before) << "the refused database file was modified";
  auto c = Connection::open(path, true);
  EXPECT_EQ(query_int(c, "PRAGMA user_version"), future);
  EXPECT_EQ(query_text(c, "PRAGMA journal_mode"), journal_mode == "WAL" ? "wal" : "delete");
  EXPECT_EQ(query_text(c, "SELECT x FROM from_the_future"), "keep me");
  EXPECT_EQ(query_int(c, "SELECT count(*) FROM sqlite_master WHERE name = 'runs'"), 0);
}

TEST(Migrations, ADatabaseFromANewerAgentryIsRefusedAndLeftUntouched) {
  expect_newer_database_refused_and_untouched("WAL");
}

TEST(Migrations, ANewerRollbackJournalDatabaseIsNotSwitchedToWal) {
  expect_newer_database_refused_and_untouched("DELETE");
}

}  // namespace
}  // namespace agentry::sqlite_store
