#include "support/test_store.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

#include <sqlite3.h>

#include "support/git_repo.hpp"  // run_command
#include "support/daemon_process.hpp"
#include "support/postgres_cluster.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {
namespace {

using namespace std::chrono_literals;

std::mutex databases_mutex;
std::map<std::string, std::string> databases;  // home -> URI

/// The schema a daemon would apply at its first start, applied once to the template its
/// databases are copied from (`agentry store migrate` is what an operator would run).
void migrate_with_agentry(const std::string& uri) {
  TempDir home;
  auto result = run_command({DaemonProcess::binary_path().string(), "store", "migrate"}, {},
                            {{"AGENTRY_HOME", home.path().string()}, {"AGENTRY_STORE", uri}}, 60s);
  if (result.exit_code != 0) throw std::runtime_error("agentry store migrate on " + uri + " failed:\n" + result.output);
}

std::string database_of(const std::filesystem::path& home) {
  std::lock_guard lock(databases_mutex);
  const std::string key = std::filesystem::absolute(home).lexically_normal().string();
  auto it = databases.find(key);
  if (it != databases.end()) return it->second;
  auto* cluster = PostgresCluster::shared();
  if (cluster == nullptr) {
    throw std::runtime_error("AGENTRY_TEST_STORE=postgresql, but " + *PostgresCluster::missing_reason());
  }
  return databases.emplace(key, cluster->create_database_from("agentry_migrated", migrate_with_agentry)).first->second;
}

void exec_sqlite(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(file.c_str(), &db) != SQLITE_OK) {
    std::string message = sqlite3_errmsg(db);
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + file.string() + ": " + message);
  }
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  if (rc != SQLITE_OK) throw std::runtime_error("SQL failed on " + file.string() + ": " + message + "\n" + sql);
}

}  // namespace

bool testing_on_postgresql() {
  const char* store = std::getenv("AGENTRY_TEST_STORE");
  return store != nullptr && std::string(store) == "postgresql";
}

EnvOverrides store_env(const std::filesystem::path& home) {
  if (!testing_on_postgresql()) return {};
  return {{"AGENTRY_STORE", database_of(home)}};
}

void exec_store_sql(const std::filesystem::path& home, const std::string& sql) {
  if (testing_on_postgresql()) {
    PostgresCluster::exec(database_of(home), sql);
  } else {
    exec_sqlite(home / "agentry.db", sql);
  }
}

}  // namespace agentry::test
