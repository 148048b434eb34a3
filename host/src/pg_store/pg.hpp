#pragma once
// Thin RAII over libpq: a connection, parameterised queries (text parameters through
// PQexecParams, so values never become SQL text), a small accessor over a result, and
// COPY ... FROM STDIN for bulk loads (CopyIn, implemented in pg_copy.cpp).
// Failures throw PgError, a store::StoreError that keeps PostgreSQL's SQLSTATE, so the
// store can retry a serialization failure and recognise a unique violation.
// A Connection is used by one thread at a time, like libpq's PGconn underneath.

#include "core/result.hpp"
#include "core/uri_secrets.hpp"
#include "store/commit_actions.hpp"
#include "store/store.hpp"
#include "store/store_error.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct pg_conn;
struct pg_result;

namespace agentry::pg_store {

/// The SQLSTATEs callers act on (PostgreSQL documentation, appendix A).
namespace sqlstate {
inline constexpr std::string_view serialization_failure = "40001";
inline constexpr std::string_view deadlock_detected = "40P01";
inline constexpr std::string_view unique_violation = "23505";
inline constexpr std::string_view foreign_key_violation = "23503";
/// Given by the wrapper when libpq reports a lost connection without a SQLSTATE.
inline constexpr std::string_view connection_failure = "08006";
}  // namespace sqlstate

/// A libpq message without the newline (and spaces) it ends with.
std::string trimmed_message(std::string text);

/// StoreError::code() is 0: a SQLSTATE is five characters, and callers ask sqlstate().
class PgError : public store::StoreError {
 public:
  PgError(std::string message, std::string state);
  /// Five characters, e.g. "23505"; empty when libpq gave none (a client-side failure).
  const std::string& sqlstate() const { return sqlstate_; }
  bool is(std::string_view state) const { return sqlstate_ == state; }

 private:
  std::string sqlstate_;
};

using core::redact_uri;

/// One query parameter, sent as text (PostgreSQL parses it as the placeholder's type,
/// so write `$1::bigint` where the type cannot be inferred), or NULL.
class Param {
 public:
  Param(std::nullopt_t) {}
  Param(std::string_view text) : value_(std::string(text)) {}
  Param(const char* text) : value_(std::string(text)) {}
  Param(std::string text) : value_(std::move(text)) {}
  Param(const std::optional<std::string>& text) : value_(text) {}
  Param(std::int64_t value) : value_(std::to_string(value)) {}
  Param(int value) : value_(std::to_string(value)) {}
  Param(bool value) : value_(value ? "true" : "false") {}

  const std::optional<std::string>& value() const { return value_; }

 private:
  std::optional<std::string> value_;
};

/// A list of keys as one parameter, a text[] literal: `WHERE id = ANY($1::text[])`
/// keeps one statement text whatever the list's length.
Param text_array(const std::vector<std::string>& items);

class Result;
class Connection;

/// One value of a result row. Accessors throw PgError when the value is NULL (except
/// is_null and optional_text) or is not of the asked type.
class Field {
 public:
  Field(const Result& result, int row, int column) : result_(result), row_(row), column_(column) {}
  bool is_null() const;
  std::string text() const;
  /// The text in place, valid while its Result lives.
  std::string_view text_view() const;
  std::optional<std::string> optional_text() const;
  std::int64_t int64() const;
  bool boolean() const;

 private:
  std::string_view raw() const;
  [[noreturn]] void fail(std::string_view wanted) const;
  const Result& result_;
  int row_;
  int column_;
};

class Row {
 public:
  Row(const Result& result, int row) : result_(result), row_(row) {}
  Field operator[](int column) const;
  /// The column of that name; throws PgError if the result has none.
  Field operator[](std::string_view column) const;

 private:
  const Result& result_;
  int row_;
};

/// The rows a statement returned, in text format.
class Result {
 public:
  explicit Result(pg_result* result);
  int rows() const;
  int columns() const;
  std::string column_name(int column) const;
  /// Throws PgError if `index` is not a row of this result.
  Row row(int index) const;
  /// Rows an INSERT/UPDATE/DELETE touched (0 for other statements): how a fenced write
  /// learns it lost its lease.
  std::int64_t affected_rows() const;
  pg_result* handle() const { return result_.get(); }

 private:
  struct Clear {
    void operator()(pg_result* r) const;
  };
  std::unique_ptr<pg_result, Clear> result_;
};

/// A `COPY <table> (<columns>) FROM STDIN` under way on a Connection (copy_in()): the
/// fast way to load many rows, one round trip per buffer instead of per statement. The
/// caller sends rows in PostgreSQL's text format (tab-separated fields, one row per line,
/// NULL as \N, backslash escapes); the server checks them as it stores them and reports a
/// bad row only at finish(). Until finish() or destruction nothing else may run on the
/// connection. Destroying it unfinished aborts the COPY: the statement fails, none of its
/// rows are kept, and the surrounding transaction must be rolled back.
class CopyIn {
 public:
  CopyIn(CopyIn&& other) noexcept;
  CopyIn& operator=(CopyIn&&) = delete;
  CopyIn(const CopyIn&) = delete;
  CopyIn& operator=(const CopyIn&) = delete;
  ~CopyIn();

  /// Sends `data`, any number of whole or partial rows. Throws PgError if the connection fails.
  void write(std::string_view data);
  /// Ends the data and waits for the server: the number of rows it stored. Throws PgError
  /// (with the SQLSTATE and the offending line) if it refused any.
  std::int64_t finish();

 private:
  friend class Connection;
  CopyIn(Connection& connection, std::string sql) : connection_(&connection), sql_(std::move(sql)) {}
  void abort() noexcept;
  Connection* connection_;
  std::string sql_;
};

/// VALIDATION_FAILED, with libpq's reason and the password redacted, when `uri` is not a
/// connection string libpq can parse (checked without connecting).
core::Result<void> check_uri(const std::string& uri);

class Connection {
 public:
  /// Connects to a libpq URI or key/value string (postgresql://user@host:port/db). The
  /// error names the target without its password and says what libpq said.
  static core::Result<Connection> open(const std::string& uri);
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  /// Runs one or more statements with no parameters (a migration, BEGIN, COMMIT).
  void exec(std::string_view sql);
  /// Runs one statement with $1, $2... bound to `params`. Each distinct SQL text is
  /// prepared once per connection (parsed and planned once, as SQLite's cached
  /// statements are), then executed by name.
  Result query(std::string_view sql, const std::vector<Param>& params = {});
  /// Starts `sql`, a COPY ... FROM STDIN statement; the rows go through the CopyIn.
  CopyIn copy_in(std::string_view sql);

  /// The target as given to open(), password redacted: for messages.
  const std::string& target() const { return target_; }
  /// False once libpq has lost the server; reset() tries to reconnect.
  bool healthy() const;
  void reset();

  /// What the current transaction's jobs asked for once it commits (the writer's).
  store::CommitActions& commit_actions() { return commit_actions_; }

  /// Tells the store's listeners (pg_listener.hpp) `topic` once the current transaction
  /// commits, nothing if it rolls back: NOTIFY on the one channel agentry uses, with
  /// the wake tag, by which a process knows its own wake-ups.
  void notify(std::string_view topic);
  void set_wake_tag(std::string tag) { wake_tag_ = std::move(tag); }

  /// libpq's connection, for the listener's socket and notifications.
  pg_conn* native() { return conn_; }

 private:
  friend class CopyIn;
  Connection(pg_conn* conn, std::string target) : conn_(conn), target_(std::move(target)) {}
  Result checked(pg_result* result, std::string_view sql);
  /// The name a SQL text was prepared under ("s1", "s2"...), on this connection.
  const std::string& prepared(const std::string& sql);

  pg_conn* conn_;
  std::string target_;
  std::unordered_map<std::string, std::string> prepared_;
  store::CommitActions commit_actions_;
  std::string wake_tag_;
};

}  // namespace agentry::pg_store
