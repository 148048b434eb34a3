// A private PostgreSQL 15 cluster for one test binary, and a fresh database per test.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "support/temp_dir.hpp"

struct pg_conn;

namespace agentry::test {

/// initdb into a temporary directory, then a server listening only on 127.0.0.1 (a free
/// port) with its Unix socket in that directory, fsync off (tests kill processes, never
/// the machine, so what a commit wrote is in the kernel either way). As root, the server
/// runs as the `postgres` user (initdb refuses root).
/// Stopped (pg_ctl -m fast) and the directory removed on destruction.
class PostgresCluster {
 public:
  /// Throws std::runtime_error, with the server's log, if the cluster cannot start.
  PostgresCluster();
  ~PostgresCluster();
  PostgresCluster(const PostgresCluster&) = delete;
  PostgresCluster& operator=(const PostgresCluster&) = delete;

  /// The binary's cluster, started on first use and stopped when the binary exits;
  /// nullptr when PostgreSQL is not installed (missing_reason() says what to install).
  static PostgresCluster* shared();
  /// Why no cluster can start here, or nullopt when the server binaries are present.
  static std::optional<std::string> missing_reason();

  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] const std::filesystem::path& directory() const { return dir_.path(); }
  /// How long initdb and the server's start took.
  [[nodiscard]] std::chrono::milliseconds start_time() const { return start_time_; }
  /// postgresql://postgres@127.0.0.1:<port>/<database>
  [[nodiscard]] std::string uri(std::string_view database) const;
  /// Creates an empty database with a name not used before and returns its URI.
  std::string create_database();
  /// Creates a database that starts as a copy of `template_name`, which `fill(uri)` (the
  /// schema migrations, say) makes once per cluster, on first use; faster than filling
  /// every database anew. `fill` must leave no connection to the template open.
  std::string create_database_from(const std::string& template_name,
                                   const std::function<void(const std::string& uri)>& fill);
  /// Drops the database of a URI create_database() returned, closing its connections.
  void drop_database(const std::string& uri);
  /// Runs `sql` on the database at `uri` over a connection of its own; throws with the
  /// server's message on failure.
  static void exec(const std::string& uri, const std::string& sql);

  /// Stops the server (fast shutdown: connections are cut) and keeps its data, as an
  /// outage of the database would; start_server() brings it back on the same port.
  void stop_server();
  void start_server();

 private:
  void init_database_directory();
  /// CREATE DATABASE `name` `options`; throws with the server's message when it fails.
  void createdb(const std::string& name, const std::string& options = {});
  /// `sql` on the `postgres` database, over one connection kept open between calls
  /// (CREATE and DROP DATABASE, a database per test), reopened after a restart.
  void admin_exec(const std::string& sql);
  void close_admin() noexcept;
  /// Starts the server on `port`, or on a free port when 0.
  bool try_start(int port = 0);
  void stop() noexcept;
  /// argv run as the server's owner (through runuser when we are root); throws on failure.
  std::string run_as_owner(std::vector<std::string> argv, std::chrono::milliseconds timeout) const;

  TempDir dir_;
  std::mutex admin_mutex_;
  pg_conn* admin_ = nullptr;  // to the `postgres` database; opened on first use
  std::filesystem::path data_;
  std::filesystem::path log_;
  int port_ = 0;
  std::atomic<int> next_database_{0};
  std::mutex templates_mutex_;
  std::set<std::string> templates_;  // made by create_database_from()
  bool running_ = false;
  std::chrono::milliseconds start_time_{0};
};

/// A fixture giving each test a fresh database on the shared cluster; skips the test
/// when PostgreSQL is not installed.
class PostgresTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  PostgresCluster& cluster() { return *cluster_; }
  [[nodiscard]] const std::string& database_uri() const { return database_uri_; }

 private:
  PostgresCluster* cluster_ = nullptr;
  std::string database_uri_;
};

}  // namespace agentry::test
