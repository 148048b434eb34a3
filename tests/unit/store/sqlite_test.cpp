#include "sqlite_store/sqlite.hpp"

#include "store_test_support.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace agentry::sqlite_store {
namespace {

Connection memory() { return Connection::open(":memory:", false); }

TEST(SqliteConnection, BindsAndReadsBackEveryType) {
  auto c = memory();
  c.exec("CREATE TABLE t (s TEXT, i INTEGER, b INTEGER, o TEXT, n TEXT)");
  const std::string with_nul("a\0b", 3);
  {
    auto s = c.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)");
    s.bind(1, with_nul).bind(2, std::numeric_limits<std::int64_t>::min()).bind(3, true);
    s.bind(4, std::optional<std::string>("present")).bind(5, std::optional<std::string>());
    s.run();
  }
  EXPECT_EQ(c.changes(), 1);
  auto s = c.prepare("SELECT s, i, b, o, n FROM t");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_text(0), with_nul);
  EXPECT_EQ(s.column_int64(1), std::numeric_limits<std::int64_t>::min());
  EXPECT_TRUE(s.column_bool(2));
  EXPECT_EQ(s.column_optional_text(3), std::optional<std::string>("present"));
  EXPECT_TRUE(s.column_is_null(4));
  EXPECT_EQ(s.column_optional_text(4), std::nullopt);
  EXPECT_EQ(s.column_text(4), "");
  EXPECT_FALSE(s.step());
}

TEST(SqliteConnection, ACachedStatementStartsFreshEachTime) {
  auto c = memory();
  {
    auto s = c.prepare("SELECT ?1, ?2");
    s.bind(1, "first").bind(2, "second");
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.column_text(1), "second");
  }
  // Same SQL again: the previous bindings and the half-read result are gone.
  auto s = c.prepare("SELECT ?1, ?2");
  s.bind(1, "again");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_text(0), "again");
  EXPECT_TRUE(s.column_is_null(1));
  EXPECT_FALSE(s.step());
}

TEST(SqliteConnection, InvalidSqlThrowsStoreErrorWithSqlitesMessage) {
  auto c = memory();
  try {
    c.exec("SELEKT 1");
    FAIL() << "exec accepted invalid SQL";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("syntax error"), std::string::npos) << e.what();
    EXPECT_EQ(e.code() & 0xff, SQLITE_ERROR);
  }
  EXPECT_THROW((void)c.prepare("SELECT * FROM no_such_table"), StoreError);
}

TEST(SqliteConnection, ConstraintViolationCarriesTheExtendedCode) {
  auto c = memory();
  c.exec("CREATE TABLE t (k INTEGER PRIMARY KEY); INSERT INTO t VALUES (1)");
  try {
    auto s = c.prepare("INSERT INTO t VALUES (?)");
    s.bind(1, 1);
    s.run();
    FAIL() << "duplicate key accepted";
  } catch (const StoreError& e) {
    EXPECT_EQ(e.code() & 0xff, SQLITE_CONSTRAINT) << e.what();
    EXPECT_NE(std::string(e.what()).find("UNIQUE"), std::string::npos) << e.what();
  }
}

TEST(SqliteConnection, OpeningAMissingFileReadOnlyNamesThePath) {
  testing::TempDir dir;
  const auto path = dir.path() / "missing.db";
  try {
    (void)Connection::open(path, true);
    FAIL() << "opened a missing file read-only";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(SqliteConnection, ReadOnlyConnectionRefusesWrites) {
  testing::TempDir dir;
  const auto path = dir.path() / "ro.db";
  {
    auto w = Connection::open(path, false);
    w.exec("CREATE TABLE t (k INTEGER)");
  }
  auto r = Connection::open(path, true);
  EXPECT_THROW(r.exec("INSERT INTO t VALUES (1)"), StoreError);
}

TEST(StoreGuard, ConvertsExceptionsIntoInternalErrors) {
  core::Result<int> from_store = guard([]() -> core::Result<int> { throw StoreError("disk I/O error", SQLITE_IOERR); });
  ASSERT_FALSE(from_store.ok());
  EXPECT_EQ(from_store.error().code, core::ErrorCode::internal);
  EXPECT_NE(from_store.error().message.find("database error"), std::string::npos);
  EXPECT_NE(from_store.error().message.find("disk I/O error"), std::string::npos);

  core::Result<int> other = guard([]() -> core::Result<int> { throw std::runtime_error("bad json"); });
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, core::ErrorCode::internal);
  EXPECT_NE(other.error().message.find("bad json"), std::string::npos);

  core::Result<int> fine = guard([]() -> core::Result<int> { return 5; });
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(*fine, 5);
}

}  // namespace
}  // namespace agentry::sqlite_store
