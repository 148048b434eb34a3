#pragma once
// Thin RAII over the SQLite C API: a connection, prepared statements with typed
// bind/column helpers, and errors that carry SQLite's own message.

#include "core/result.hpp"
#include "store/commit_actions.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace agentry::sqlite_store {

using store::guard;
using store::StoreError;

class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  ~Statement();

  // Parameters are 1-based, as in SQLite. Text is copied (SQLITE_TRANSIENT).
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, bool value) { return bind(index, static_cast<std::int64_t>(value ? 1 : 0)); }
  Statement& bind(int index, const std::optional<std::string>& text);
  Statement& bind_null(int index);
  /// Binds without copying: `text` must stay alive and unchanged until the step is done
  /// (a temporary string is refused).
  Statement& bind_view(int index, std::string_view text);
  Statement& bind_view(int index, const std::string& text) { return bind_view(index, std::string_view(text)); }
  Statement& bind_view(int index, const std::optional<std::string>& text) {
    return text ? bind_view(index, std::string_view(*text)) : bind_null(index);
  }
  Statement& bind_view(int index, std::string&& text) = delete;
  Statement& bind_view(int index, std::optional<std::string>&& text) = delete;

  /// Makes the statement ready to bind and run again (as its destruction does).
  void reset();

  /// Advances; true when a row is available. Failures throw StoreError.
  bool step();
  /// Steps a statement that returns no rows.
  void run();

  std::string column_text(int index) const;
  /// The text in place: valid until the next step or reset.
  std::string_view column_view(int index) const;
  std::optional<std::string> column_optional_text(int index) const;
  std::int64_t column_int64(int index) const;
  int column_int(int index) const { return static_cast<int>(column_int64(index)); }
  bool column_bool(int index) const { return column_int64(index) != 0; }
  bool column_is_null(int index) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

/// Thrown by the wrapper on SQLite failures; the store converts it into core::Error
/// at its boundary so domain code sees Result<T>.
class Connection {
 public:
  /// `gather_wal_writes`: through coalescing_vfs.hpp (for the connection that writes).
  static Connection open(const std::filesystem::path& path, bool read_only, bool gather_wal_writes = false);
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&&) = delete;
  Connection(const Connection&) = delete;
  ~Connection();

  /// Runs one or more statements with no parameters.
  void exec(std::string_view sql);
  /// Runs one statement with no parameters from the statement cache: for the ones a
  /// connection repeats for every transaction (BEGIN, SAVEPOINT, COMMIT), parsed once.
  void run(std::string_view sql) { prepare(sql).run(); }
  /// A cached prepared statement (SQLITE_PREPARE_PERSISTENT), reset when the returned object dies.
  /// Two live Statements for the same SQL text would share one handle: don't nest them.
  Statement prepare(std::string_view sql);
  std::int64_t changes() const;
  sqlite3* handle() const { return db_; }

  /// After each commit of this connection to the write-ahead log, `hook` is told how many
  /// frames the log holds, with a function that copies them into the database then and
  /// there (a passive checkpoint on this connection). Replaces SQLite's automatic
  /// checkpoint, which copies every 1,000 frames on the committing thread.
  using WalHook = std::function<void(int frames, const std::function<void()>& checkpoint_here)>;
  void on_wal_commit(WalHook hook);
  /// Copies what the log holds that the database does not yet (a passive checkpoint:
  /// never waits, and copies nothing while another connection checkpoints).
  void checkpoint();

  /// What the current transaction's jobs asked for once it commits (the writer's).
  store::CommitActions& commit_actions() { return commit_actions_; }
  /// Wake-ups are for processes sharing a server (pg_store); one SQLite file has no listeners.
  void notify(std::string_view) {}

 private:
  explicit Connection(sqlite3* db) : db_(db) {}
  sqlite3* db_;
  struct SqlHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view sql) const { return std::hash<std::string_view>{}(sql); }
  };
  std::unordered_map<std::string, sqlite3_stmt*, SqlHash, std::equal_to<>> cache_;
  store::CommitActions commit_actions_;
  std::unique_ptr<WalHook> wal_hook_;  // SQLite holds its address
};

}  // namespace agentry::sqlite_store
