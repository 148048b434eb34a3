#include "store_test_support.hpp"

#include "pg_store/pg_store.hpp"
#include "pg_store/pg_transaction.hpp"
#include "support/postgres_cluster.hpp"

#include <atomic>
#include <chrono>
#include <system_error>
#include <unistd.h>

namespace agentry::sqlite_store::testing {

TempDir::TempDir() {
  static std::atomic<unsigned> counter{0};
  const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  path_ = std::filesystem::temp_directory_path() /
          ("agentry-store-test-" + std::to_string(::getpid()) + "-" + std::to_string(stamp) + "-" +
           std::to_string(counter++));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::unique_ptr<SqliteStore> open_database(const std::filesystem::path& path, SqliteOptions options) {
  auto db = SqliteStore::open(path, options);
  if (!db.ok()) throw std::runtime_error("cannot open test database: " + db.error().message);
  return std::move(db).value();
}

core::Run make_run(const std::string& id, const std::string& created_at) {
  core::Run r;
  r.id = id;
  r.created_at = created_at;
  r.updated_at = created_at;
  r.cwd = "/work/project";
  r.repo_root = "/work/project";
  r.run_group_id = "group-" + id;
  r.frozen.agent_name = "coder";
  r.frozen.backend = "claude";
  return r;
}

core::Task make_task(const std::string& run_id, const std::string& id, int position, core::TaskStatus status) {
  core::Task t;
  t.run_id = run_id;
  t.id = id;
  t.title = "Title of " + id;
  t.body = "Body of " + id;
  t.status = status;
  t.source = "inline";
  t.position = position;
  t.created_at = "2024-01-01T00:00:00.000Z";
  t.updated_at = "2024-01-01T00:00:00.000Z";
  return t;
}

std::int64_t query_int(Connection& c, const std::string& sql) {
  auto s = c.prepare(sql);
  if (!s.step()) throw std::runtime_error("no row from: " + sql);
  return s.column_int64(0);
}

Connection& connection_of(store::Transaction& t) { return static_cast<SqliteTransaction&>(t).connection(); }

std::int64_t query_int(store::Transaction& t, const std::string& sql) {
  if (auto* pg = dynamic_cast<pg_store::PgTransaction*>(&t)) return pg->connection().query(sql).row(0)[0].int64();
  return query_int(connection_of(t), sql);
}

std::string engine_name(const ::testing::TestParamInfo<Engine>& info) {
  return info.param == Engine::sqlite ? "sqlite" : "postgresql";
}

void StoreTest::SetUp() {
  if (engine() == Engine::postgresql) {
    auto* cluster = test::PostgresCluster::shared();
    if (cluster == nullptr) GTEST_SKIP() << *test::PostgresCluster::missing_reason();
    database_uri_ = cluster->create_database_from("agentry_migrated", [](const std::string& uri) {
      auto migrated = pg_store::PgStore::open(uri);  // and closed again: a template has no users
      if (!migrated.ok()) throw std::runtime_error("cannot migrate the template database: " + migrated.error().message);
    });
  } else {
    dir_.emplace();
  }
  db_ = open();
}

void StoreTest::TearDown() {
  db_.reset();
  if (!database_uri_.empty()) test::PostgresCluster::shared()->drop_database(database_uri_);
}

void StoreTest::reopen() {
  db_.reset();
  db_ = open();
}

std::unique_ptr<store::Store> StoreTest::open() {
  if (engine() == Engine::sqlite) return open_database(dir_->path() / "agentry.db");
  auto db = pg_store::PgStore::open(database_uri_);
  if (!db.ok()) throw std::runtime_error("cannot open test database: " + db.error().message);
  return std::move(db).value();
}

}  // namespace agentry::sqlite_store::testing
