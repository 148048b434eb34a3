#include "pg_store/migrations.hpp"

#include "sqlite_store/migrations.hpp"
#include "sqlite_store/sqlite.hpp"
#include "store/timeline_batches.hpp"
#include "support/postgres_cluster.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace agentry::pg_store {
namespace {

using Names = std::set<std::string>;

Connection connect(const std::string& uri) {
  auto c = Connection::open(uri);
  if (!c.ok()) throw std::runtime_error(c.error().message);
  return std::move(c).value();
}

Names pg_names(Connection& c, const std::string& sql) {
  Names names;
  auto r = c.query(sql);
  for (int i = 0; i < r.rows(); ++i) names.insert(r.row(i)[0].text());
  return names;
}

// The same list from a freshly migrated SQLite database: what PostgreSQL must match.
Names sqlite_names(const std::string& sql) {
  auto c = sqlite_store::Connection::open(":memory:", false);
  auto migrated = sqlite_store::migrate(c, "memory");
  if (!migrated.ok()) throw std::runtime_error(migrated.error().message);
  Names names;
  auto s = c.prepare(sql);
  while (s.step()) names.insert(s.column_text(0));
  return names;
}

Names pg_tables(Connection& c) {
  return pg_names(c, "SELECT table_name FROM information_schema.tables "
                     "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'");
}

class PgMigrations : public test::PostgresTest {};

TEST_F(PgMigrations, CreateEveryTableTheSqliteSchemaHas) {
  auto c = connect(database_uri());
  EXPECT_EQ(schema_version(c), 0);
  auto migrated = migrate(c);
  ASSERT_TRUE(migrated.ok()) << migrated.error().message;
  EXPECT_EQ(schema_version(c), latest_schema_version());

  auto tables = pg_tables(c);
  EXPECT_EQ(tables.erase("schema_migrations"), 1u);
  const auto expected =
      sqlite_names("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  EXPECT_GE(expected.size(), 14u);
  EXPECT_EQ(tables, expected);
}

TEST_F(PgMigrations, CreateEveryIndexAndColumnTheSqliteSchemaHas) {
  auto c = connect(database_uri());
  ASSERT_TRUE(migrate(c).ok());
  // Indexes made by CREATE INDEX, not those behind primary keys and unique constraints.
  EXPECT_EQ(pg_names(c, "SELECT indexname FROM pg_indexes i WHERE schemaname = current_schema() "
                        "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)"),
            sqlite_names("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"));

  auto columns = pg_names(c, "SELECT table_name || '.' || column_name FROM information_schema.columns "
                             "WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'");
  // PostgreSQL has no rowid: queued messages keep their insertion order in seq.
  EXPECT_EQ(columns.erase("queued_messages.seq"), 1u);
  EXPECT_EQ(columns, sqlite_names("SELECT m.name || '.' || p.name FROM sqlite_master m, pragma_table_info(m.name) p "
                                  "WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'"));
}

TEST_F(PgMigrations, TheSchemaTakesARunWithItsRowsAndOrdersTextAsBytes) {
  auto c = connect(database_uri());
  ASSERT_TRUE(migrate(c).ok());
  for (const char* id : {"b", "B", "_", "a"}) {
    c.query("INSERT INTO runs (id, status, created_at, updated_at, cwd, run_group_id, agent_name, assignment_name, "
            "backend, frozen_json) VALUES ($1, 'queued', '2024-01-01T00:00:00.000Z', 't', '/w', $1, 'a', '', "
            "'mock', '{}')",
            {id});
  }
  c.query("INSERT INTO queued_messages (id, run_id, text, created_at) VALUES ('q2', 'a', 'second', 't'), "
          "('q1', 'a', 'first', 't')");
  // Every indexed text column compares bytes, as SQLite's BINARY does, whatever the
  // database's locale: 'B' < '_' < 'a' < 'b'.
  EXPECT_EQ(pg_names(c, "SELECT t.relname || '.' || a.attname FROM pg_index i "
                        "JOIN pg_class t ON t.oid = i.indrelid "
                        "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY (i.indkey) "
                        "WHERE t.relnamespace = current_schema()::regnamespace AND a.atttypid = 'text'::regtype "
                        "AND a.attcollation <> 'pg_catalog.\"C\"'::regcollation"),
            Names{});
  auto r = c.query("SELECT id FROM runs ORDER BY created_at DESC, id DESC");
  std::string order;
  for (int i = 0; i < r.rows(); ++i) order += r.row(i)[0].text();
  EXPECT_EQ(order, "ba_B");
  auto q = c.query("SELECT text FROM queued_messages WHERE run_id = $1 ORDER BY seq", {"a"});
  ASSERT_EQ(q.rows(), 2);
  EXPECT_EQ(q.row(0)[0].text(), "second");
  // Deleting a run takes its rows with it, as in SQLite.
  c.query("DELETE FROM runs WHERE id = $1", {"a"});
  EXPECT_EQ(c.query("SELECT count(*) FROM queued_messages").row(0)[0].int64(), 0);
}

TEST_F(PgMigrations, OlderTimelineRowsArePackedAsTheStoreWouldPackThem) {
  auto c = connect(database_uri());
  ASSERT_TRUE(migrate(c, 7).ok());
  c.query("INSERT INTO runs (id, status, created_at, updated_at, cwd, run_group_id, agent_name, assignment_name, "
          "backend, frozen_json) VALUES ('r1', 'success', 't', 't', '/w', 'r1', 'a', '', 'mock', '{}')");
  std::vector<core::TimelineEvent> old{
      {"r1", 1, "kïnd", 3, "2024-01-01T00:00:00.000Z", {}, false, R"({"t":"ü;1:"})", {}},
      {"r1", 2, "notice", std::nullopt, "2024-01-01T00:00:01.000Z", {}, false, "{}", {}}};
  for (const auto& e : old)
    c.query("INSERT INTO timeline_events VALUES ($1, $2, $3, $4, $5, $6)",
            {e.run_id, e.cursor, e.kind, e.attempt_number ? Param(*e.attempt_number) : Param(std::nullopt), e.at.view(),
             e.payload_json});
  ASSERT_TRUE(migrate(c).ok());
  for (const auto& e : old) {
    auto r = c.query("SELECT first_cursor, first_attempt IS NULL, events FROM timeline_batches WHERE last_cursor = $1",
                     {e.cursor});
    ASSERT_EQ(r.rows(), 1);
    EXPECT_EQ(r.row(0)[0].int64(), e.cursor);
    EXPECT_EQ(r.row(0)[1].boolean(), !e.attempt_number.has_value());
    EXPECT_EQ(r.row(0)[2].text(), store::pack_timeline_rows({e}).at(0).events);
  }
  EXPECT_EQ(pg_tables(c).count("timeline_events"), 0u);
}

TEST_F(PgMigrations, MigratingAgainChangesNothing) {
  auto c = connect(database_uri());
  ASSERT_TRUE(migrate(c).ok());
  const auto applied_at = c.query("SELECT string_agg(version || '@' || applied_at, ',') FROM schema_migrations")
                              .row(0)[0]
                              .text();
  auto again = migrate(c);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(c.query("SELECT string_agg(version || '@' || applied_at, ',') FROM schema_migrations").row(0)[0].text(),
            applied_at);
  EXPECT_EQ(c.query("SELECT count(*) FROM schema_migrations").row(0)[0].int64(), latest_schema_version());
}

TEST_F(PgMigrations, ConnectionsMigratingAtOnceApplyEachMigrationOnce) {
  // Daemons starting together: whoever waits for the advisory lock finds the work done.
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  std::vector<std::string> errors(6);
  for (std::size_t i = 0; i < errors.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        auto c = connect(database_uri());
        auto r = migrate(c);
        if (!r.ok()) {
          errors[i] = r.error().message;
          ++failures;
        }
      } catch (const std::exception& e) {
        errors[i] = e.what();
        ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  EXPECT_EQ(failures.load(), 0);
  auto c = connect(database_uri());
  EXPECT_EQ(c.query("SELECT count(*), count(DISTINCT version) FROM schema_migrations").row(0)[0].int64(),
            latest_schema_version());
  EXPECT_EQ(schema_version(c), latest_schema_version());
}

TEST_F(PgMigrations, ADatabaseFromANewerAgentryIsRefusedUntouched) {
  auto c = connect(database_uri());
  ASSERT_TRUE(migrate(c).ok());
  c.query("INSERT INTO schema_migrations (version) VALUES ($1::integer)", {latest_schema_version() + 1});
  auto r = migrate(c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("newer than this agentry understands"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(database_uri()), std::string::npos) << r.error().message;
  EXPECT_EQ(schema_version(c), latest_schema_version() + 1);
}

TEST_F(PgMigrations, AFailedMigrationLeavesNothingBehind) {
  // A table in the way makes migration 1 fail; its transaction takes every table with it.
  auto c = connect(database_uri());
  c.exec("CREATE TABLE project_trust (x integer)");
  auto r = migrate(c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("project_trust"), std::string::npos) << r.error().message;
  EXPECT_EQ(schema_version(c), 0);
  auto tables = pg_tables(c);
  tables.erase("schema_migrations");
  EXPECT_EQ(tables, Names{"project_trust"});
}

}  // namespace
}  // namespace agentry::pg_store
