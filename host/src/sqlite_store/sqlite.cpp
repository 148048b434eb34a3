#include "sqlite_store/sqlite.hpp"

#include "sqlite_store/coalescing_vfs.hpp"

#include <sqlite3.h>

#include <mutex>

namespace agentry::sqlite_store {
namespace {

[[noreturn]] void throw_error(sqlite3* db, int rc, std::string_view what) {
  std::string message(what);
  message += ": ";
  message += db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw StoreError(message, rc);
}

}  // namespace

Statement::Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }

Statement::~Statement() { reset(); }

void Statement::reset() {
  if (!stmt_) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Statement& Statement::bind_view(int index, std::string_view text) {
  int rc = sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  if (rc != SQLITE_OK) throw_error(db_, rc, "bind text");
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  int rc = sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) throw_error(db_, rc, "bind text");
  return *this;
}

Statement& Statement::bind(int index, std::int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) throw_error(db_, rc, "bind int");
  return *this;
}

Statement& Statement::bind(int index, const std::optional<std::string>& text) {
  return text ? bind(index, std::string_view(*text)) : bind_null(index);
}

Statement& Statement::bind_null(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) throw_error(db_, rc, "bind null");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_error(db_, rc, sqlite3_sql(stmt_));
}

void Statement::run() {
  while (step()) {
  }
}

std::string Statement::column_text(int index) const {
  auto* text = sqlite3_column_text(stmt_, index);
  if (!text) return {};
  return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, index)));
}

std::string_view Statement::column_view(int index) const {
  auto* text = sqlite3_column_text(stmt_, index);
  if (!text) return {};
  return {reinterpret_cast<const char*>(text), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, index))};
}

std::optional<std::string> Statement::column_optional_text(int index) const {
  if (column_is_null(index)) return std::nullopt;
  return column_text(index);
}

std::int64_t Statement::column_int64(int index) const { return sqlite3_column_int64(stmt_, index); }

bool Statement::column_is_null(int index) const { return sqlite3_column_type(stmt_, index) == SQLITE_NULL; }

namespace {

/// Process-wide settings, which SQLite accepts only before it initializes (the first open).
void configure_sqlite_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The write queue runs every job of a group commit in its own SAVEPOINT, and SQLite
    // keeps the page images that roll one back in a sub-journal, which goes to a temp file
    // once it exceeds 64 KiB: a few runs created together already did, so each commit
    // opened, wrote and unlinked a file. Up to 4 MiB (for the one writer) now stays in
    // memory. SQLITE_MISUSE (already initialized by someone else) just keeps the default.
    sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, 4 * 1024 * 1024);
  });
}

}  // namespace

Connection Connection::open(const std::filesystem::path& path, bool read_only, bool gather_wal_writes) {
  configure_sqlite_once();  // first: registering a VFS initializes SQLite, which ends its configuration
  const char* vfs = gather_wal_writes ? coalescing_vfs_name() : nullptr;
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_NOMUTEX | (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, vfs);
  if (rc != SQLITE_OK) {
    std::string message = "cannot open database " + path.string() + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close_v2(db);
    throw StoreError(message, rc);
  }
  sqlite3_extended_result_codes(db, 1);
  // Another process (the embedded CLI) may hold the write lock briefly; wait rather than fail.
  sqlite3_busy_timeout(db, 10000);
  return Connection(db);
}

Connection::Connection(Connection&& other) noexcept
    : db_(other.db_),
      cache_(std::move(other.cache_)),
      commit_actions_(std::move(other.commit_actions_)),
      wal_hook_(std::move(other.wal_hook_)) {
  other.db_ = nullptr;
  other.cache_.clear();  // a moved-from map is only "valid", not necessarily empty
}

Connection::~Connection() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  if (db_) sqlite3_close_v2(db_);
}

void Connection::exec(std::string_view sql) {
  std::string text(sql);
  char* error = nullptr;
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    throw StoreError(message, rc);
  }
}

Statement Connection::prepare(std::string_view sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                                nullptr);
    if (rc != SQLITE_OK) throw_error(db_, rc, "prepare");
    it = cache_.emplace(std::string(sql), stmt).first;
  }
  return Statement(db_, it->second);
}

std::int64_t Connection::changes() const { return sqlite3_changes64(db_); }

namespace {

/// Copies what the log holds that the database does not (never waits); SQLite's code.
int passive_checkpoint(sqlite3* db) {
  return sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
}

}  // namespace

void Connection::on_wal_commit(WalHook hook) {
  wal_hook_ = std::make_unique<WalHook>(std::move(hook));
  sqlite3_wal_hook(
      db_,
      [](void* installed, sqlite3* db, const char*, int frames) {
        // What SQLite's own automatic checkpoint does, when asked: a failure here does not
        // undo the commit, and the next one tries again.
        const std::function<void()> checkpoint_here = [db] { passive_checkpoint(db); };
        (*static_cast<WalHook*>(installed))(frames, checkpoint_here);
        return SQLITE_OK;
      },
      wal_hook_.get());
}

void Connection::checkpoint() {
  const int rc = passive_checkpoint(db_);
  const int primary = rc & 0xff;  // extended result codes are on
  if (primary != SQLITE_OK && primary != SQLITE_BUSY && primary != SQLITE_LOCKED) throw_error(db_, rc, "checkpoint");
}

}  // namespace agentry::sqlite_store
