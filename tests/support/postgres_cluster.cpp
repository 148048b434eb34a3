#include "support/postgres_cluster.hpp"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <system_error>

#include <libpq-fe.h>
#include <pwd.h>
#include <unistd.h>

#include "support/git_repo.hpp"  // run_command
#include "support/socket_io.hpp"
#include "support/subprocess.hpp"

namespace agentry::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Debian's PostgreSQL 15 server; AGENTRY_PG_BIN points elsewhere (another version, a
// build of its own).
fs::path bin_dir() {
  const char* dir = std::getenv("AGENTRY_PG_BIN");
  return dir != nullptr && *dir != '\0' ? fs::path(dir) : fs::path("/usr/lib/postgresql/15/bin");
}

fs::path bin(const char* name) { return bin_dir() / name; }

bool running_as_root() { return ::geteuid() == 0; }

// The file that names the test process owning a cluster directory, so the next binary
// can stop and remove a cluster whose test process died without doing it.
constexpr const char* owner_file = "postgres-cluster.owner";

// argv as the server's owner: through runuser as `postgres` when we are root.
std::vector<std::string> as_owner(std::vector<std::string> argv) {
  if (running_as_root()) argv.insert(argv.begin(), {"runuser", "-u", "postgres", "--"});
  return argv;
}

// Stops the servers of clusters whose test process died before stopping them (a crash,
// a kill -9), and removes their directories. Directories kept with AGENTRY_KEEP_TEST_DIRS
// hold no running server and are left alone.
void reap_abandoned_clusters() {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    const auto dir = entry.path();
    if (dir.filename().string().rfind("agentry-test-", 0) != 0 || !fs::exists(dir / owner_file, ec)) continue;
    long owner = 0;
    std::ifstream(dir / owner_file) >> owner;
    if (owner <= 0 || process_alive(owner) || !fs::exists(dir / "data" / "postmaster.pid", ec)) continue;
    std::cerr << "[agentry-test] stopping the PostgreSQL cluster a dead test process left in " << dir.string() << '\n';
    try {
      (void)run_command(as_owner({bin("pg_ctl").string(), "-D", (dir / "data").string(), "-m", "immediate", "-w",
                                  "stop"}),
                        dir, {}, 60s);
      fs::remove_all(dir, ec);
    } catch (const std::exception& e) {
      // Someone else's leftover, not this test's failure.
      std::cerr << "[agentry-test] could not stop it: " << e.what() << '\n';
    }
  }
}

std::string tail_of(const fs::path& log) {
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > 4000 ? "..." + text.substr(text.size() - 4000) : text;
}

}  // namespace

std::optional<std::string> PostgresCluster::missing_reason() {
  for (const char* name : {"initdb", "pg_ctl", "postgres"}) {
    if (::access(bin(name).c_str(), X_OK) != 0) {
      return "PostgreSQL 15 is not installed (no " + bin(name).string() +
             "): install Debian's postgresql and libpq-dev (scripts/install-deps.sh), or set AGENTRY_PG_BIN "
             "to a directory holding initdb, pg_ctl and postgres";
    }
  }
  if (running_as_root() && ::getpwnam("postgres") == nullptr) {
    return std::string("running as root, and there is no `postgres` user to run the server as (initdb refuses "
                       "root): install Debian's postgresql package, which creates it");
  }
  return std::nullopt;
}

PostgresCluster* PostgresCluster::shared() {
  // A static: stopped by its destructor when the test binary exits.
  static const std::unique_ptr<PostgresCluster> cluster =
      missing_reason() ? nullptr : std::make_unique<PostgresCluster>();
  return cluster.get();
}

std::string PostgresCluster::run_as_owner(std::vector<std::string> argv, std::chrono::milliseconds timeout) const {
  argv = as_owner(std::move(argv));
  auto result = run_command(argv, dir_.path(), {{"LC_ALL", "C.UTF-8"}}, timeout);
  if (result.exit_code != 0) {
    std::string command;
    for (const auto& a : argv) command += (command.empty() ? "" : " ") + a;
    throw std::runtime_error(command + " exited with " + std::to_string(result.exit_code) + ":\n" + result.output);
  }
  return result.output;
}

PostgresCluster::PostgresCluster() : data_(dir_.path() / "data"), log_(dir_.path() / "postgres.log") {
  reap_abandoned_clusters();
  const auto started = Clock::now();
  write_file(dir_.path() / owner_file, std::to_string(::getpid()));
  if (running_as_root()) {
    const passwd* owner = ::getpwnam("postgres");
    if (owner == nullptr) throw std::runtime_error("no `postgres` user to run the test cluster as");
    if (::chown(dir_.path().c_str(), owner->pw_uid, owner->pw_gid) != 0) {
      throw std::runtime_error(errno_message("chown " + dir_.path().string(), errno));
    }
  }
  init_database_directory();
  // The port was free when chosen; another process may bind it before the server does.
  for (int attempt = 0; !try_start(); ++attempt) {
    if (attempt == 2) {
      throw std::runtime_error("the test PostgreSQL cluster in " + dir_.path().string() +
                               " did not start; its log:\n" + tail_of(log_));
    }
  }
  start_time_ = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  std::cerr << "[agentry-test] PostgreSQL cluster on 127.0.0.1:" << port_ << " (" << dir_.path().string()
            << ") started in " << start_time_.count() << " ms\n";
}

PostgresCluster::~PostgresCluster() { stop(); }

namespace {

// One statement (or several, without parameters) on `conn`; throws with the database,
// the server's message and the SQL when it fails.
void exec_on(PGconn* conn, const std::string& sql) {
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn, sql.c_str()), &PQclear);
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    throw std::runtime_error("SQL failed on database " + std::string(PQdb(conn)) + ": " + PQerrorMessage(conn) + sql);
  }
}

std::unique_ptr<PGconn, decltype(&PQfinish)> connect(const std::string& uri) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(uri.c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    throw std::runtime_error("cannot connect to " + uri + ": " + PQerrorMessage(conn.get()));
  }
  return conn;
}

}  // namespace

void PostgresCluster::exec(const std::string& uri, const std::string& sql) { exec_on(connect(uri).get(), sql); }

void PostgresCluster::admin_exec(const std::string& sql) {
  std::lock_guard lock(admin_mutex_);
  if (admin_ != nullptr && PQstatus(admin_) != CONNECTION_OK) close_admin();
  if (admin_ == nullptr) admin_ = connect(uri("postgres")).release();
  exec_on(admin_, sql);
}

void PostgresCluster::close_admin() noexcept {
  if (admin_ != nullptr) PQfinish(admin_);
  admin_ = nullptr;
}

void PostgresCluster::init_database_directory() {
  run_as_owner({bin("initdb").string(), "-D", data_.string(), "-A", "trust", "-U", "postgres", "--no-sync",
                "-E", "UTF8", "--locale=C.UTF-8"},
               120s);
}

bool PostgresCluster::try_start(int port) {
  port_ = port != 0 ? port : free_loopback_port();
  // Tests kill daemons and this server, never the machine: what a commit wrote reaches the
  // kernel either way, so flushing it to the disk (fsync) would only make every test wait.
  const std::string options = "-p " + std::to_string(port_) + " -k " + dir_.path().string() +
                              " -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off";
  try {
    run_as_owner({bin("pg_ctl").string(), "-D", data_.string(), "-l", log_.string(), "-o", options, "-w", "-t",
                  "60", "start"},
                 90s);
  } catch (const std::exception& e) {
    std::cerr << "[agentry-test] PostgreSQL did not start on port " << port_ << ": " << e.what() << '\n';
    return false;
  }
  running_ = true;
  return true;
}

void PostgresCluster::stop() noexcept {
  {
    std::lock_guard lock(admin_mutex_);
    close_admin();  // before the server goes: a fast shutdown would cut it anyway
  }
  if (!running_) return;
  running_ = false;
  try {
    const auto started = Clock::now();
    run_as_owner({bin("pg_ctl").string(), "-D", data_.string(), "-m", "fast", "-w", "-t", "60", "stop"}, 90s);
    std::cerr << "[agentry-test] PostgreSQL cluster on 127.0.0.1:" << port_ << " stopped in "
              << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count() << " ms\n";
  } catch (const std::exception& e) {
    std::cerr << "[agentry-test] could not stop the PostgreSQL cluster in " << dir_.path().string() << ": "
              << e.what() << '\n';
  }
}

void PostgresCluster::stop_server() { stop(); }

void PostgresCluster::start_server() {
  if (running_) return;
  if (!try_start(port_)) {
    throw std::runtime_error("the test PostgreSQL cluster did not start again on port " + std::to_string(port_) +
                             "; its log:\n" + tail_of(log_));
  }
}

std::string PostgresCluster::uri(std::string_view database) const {
  return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + std::string(database);
}

void PostgresCluster::createdb(const std::string& name, const std::string& options) {
  admin_exec("CREATE DATABASE " + name + options);
}

std::string PostgresCluster::create_database() {
  const std::string name = "test_" + std::to_string(++next_database_);
  createdb(name);
  return uri(name);
}

std::string PostgresCluster::create_database_from(const std::string& template_name,
                                                  const std::function<void(const std::string& uri)>& fill) {
  {
    std::lock_guard lock(templates_mutex_);
    if (!templates_.contains(template_name)) {
      createdb(template_name);
      fill(uri(template_name));
      templates_.insert(template_name);
    }
  }
  const std::string name = "test_" + std::to_string(++next_database_);
  // A file copy of a small database is quicker than writing it through the WAL (the
  // default), and this cluster does not sync what it writes.
  createdb(name, " TEMPLATE " + template_name + " STRATEGY file_copy");
  return uri(name);
}

void PostgresCluster::drop_database(const std::string& uri) {
  admin_exec("DROP DATABASE " + uri.substr(uri.rfind('/') + 1) + " WITH (FORCE)");
}

void PostgresTest::SetUp() {
  cluster_ = PostgresCluster::shared();
  if (cluster_ == nullptr) GTEST_SKIP() << *PostgresCluster::missing_reason();
  database_uri_ = cluster_->create_database();
}

void PostgresTest::TearDown() {
  // The server's last checkpoint would flush every test's pages; a dropped database has none.
  if (cluster_ != nullptr && !database_uri_.empty()) cluster_->drop_database(database_uri_);
}

}  // namespace agentry::test
