#pragma once
// Helpers for the store tests: a scratch directory, a freshly migrated database in it,
// a fixture that runs a test on every engine (SQLite and PostgreSQL), runs and tasks
// with every required field filled, and write/read shorthands that fail the test (by
// throwing) when the store reports an error.

#include "core/result.hpp"
#include "core/run.hpp"
#include "sqlite_store/sqlite_store.hpp"
#include "sqlite_store/sqlite.hpp"
#include "sqlite_store/sqlite_transaction.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace agentry::sqlite_store::testing {

/// A unique directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// synchronous=NORMAL: the tests check what is stored, not power-loss durability, and
/// an fsync per commit would make the suite slow.
inline constexpr SqliteOptions fast_options{false, 512};

/// Opens (creating and migrating) `path`; throws std::runtime_error with the store's message on failure.
std::unique_ptr<SqliteStore> open_database(const std::filesystem::path& path, SqliteOptions options = fast_options);

enum class Engine { sqlite, postgresql };

/// "sqlite" / "postgresql": the suffix of a test's name. ctest runs the postgresql ones
/// in one entry (PgStoreTests), so they share one private cluster.
std::string engine_name(const ::testing::TestParamInfo<Engine>& info);

/// A fresh, migrated store of the parameter's engine for each test: a SQLite file in a
/// scratch directory, or a new database on the test binary's private PostgreSQL cluster
/// (the test is skipped when PostgreSQL is not installed).
class StoreTest : public ::testing::TestWithParam<Engine> {
 protected:
  void SetUp() override;
  void TearDown() override;
  store::Store& db() { return *db_; }
  Engine engine() const { return GetParam(); }
  /// Closes the store and opens it again on the same file or database.
  void reopen();

 private:
  std::unique_ptr<store::Store> open();
  std::optional<TempDir> dir_;
  std::string database_uri_;
  std::unique_ptr<store::Store> db_;
};

/// A run with every NOT NULL column filled; `created_at` also orders list pages.
core::Run make_run(const std::string& id, const std::string& created_at = "2024-01-01T00:00:00.000Z");

core::Task make_task(const std::string& run_id, const std::string& id, int position,
                     core::TaskStatus status = core::TaskStatus::pending);

/// The integer in the first column of the first row of `sql`, read on `c`.
std::int64_t query_int(Connection& c, const std::string& sql);
/// Portable SQL only: it runs on whichever engine is under `t`.
std::int64_t query_int(store::Transaction& t, const std::string& sql);

/// The SQLite connection under a transaction of the SQLite store, for raw SQL checks.
Connection& connection_of(store::Transaction& t);

/// Runs `fn(store::Transaction&)` on the writer and waits for the commit; throws on failure.
template <class F>
void write(store::Store& db, F&& fn) {
  auto r = db.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    fn(c);
    return true;
  });
  if (!r.ok()) throw std::runtime_error("write failed: " + r.error().message);
}

/// Runs `fn(store::Transaction&)` on a pooled reader and returns its value; throws on failure.
template <class F>
auto read(store::Store& db, F&& fn) {
  using T = decltype(fn(std::declval<store::Transaction&>()));
  auto r = db.read([&](store::Transaction& c) -> core::Result<T> { return fn(c); });
  if (!r.ok()) throw std::runtime_error("read failed: " + r.error().message);
  return std::move(r).value();
}

}  // namespace agentry::sqlite_store::testing

/// Runs a StoreTest suite on both engines: Engines/Suite.Test/sqlite and .../postgresql.
#define AGENTRY_STORE_TEST_ON_EVERY_ENGINE(Suite)                                                          \
  INSTANTIATE_TEST_SUITE_P(Engines, Suite,                                                                \
                           ::testing::Values(::agentry::sqlite_store::testing::Engine::sqlite,            \
                                             ::agentry::sqlite_store::testing::Engine::postgresql),       \
                           ::agentry::sqlite_store::testing::engine_name)
