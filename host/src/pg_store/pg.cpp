#include "pg_store/pg.hpp"

#include "core/log.hpp"
#include "core/uri_secrets.hpp"

#include "pg_store/libpq.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

namespace agentry::pg_store {

std::string trimmed_message(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

namespace {

// Notices ("relation already exists, skipping") would go to stderr; the log keeps them.
void log_notice(void*, const char* message) {
  core::log_debug("postgresql notice", {{"message", trimmed_message(message)}});
}

}  // namespace

namespace {

// Class 40's serialization failure and deadlock mean "run the transaction again"; class
// 08 (connection exceptions) and 57P01-03 (the server shutting down or starting) mean
// the server cannot be reached now.
store::StoreError::Kind kind_of(std::string_view state) {
  using Kind = store::StoreError::Kind;
  if (state == sqlstate::serialization_failure || state == sqlstate::deadlock_detected) return Kind::retry;
  if (state.substr(0, 2) == "08" || state == "57P01" || state == "57P02" || state == "57P03") return Kind::unavailable;
  return Kind::failure;
}

}  // namespace

PgError::PgError(std::string message, std::string state)
    : store::StoreError(std::move(message), 0, kind_of(state)), sqlstate_(std::move(state)) {}


Param text_array(const std::vector<std::string>& items) {
  // Every element double-quoted, quotes and backslashes escaped: the array literal's own rules.
  std::string literal = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) literal += ',';
    literal += '"';
    for (char ch : items[i]) {
      if (ch == '"' || ch == '\\') literal += '\\';
      literal += ch;
    }
    literal += '"';
  }
  literal += '}';
  return Param(std::move(literal));
}

// --- Result -------------------------------------------------------------------------

void Result::Clear::operator()(pg_result* r) const { libpq::get().PQclear(r); }

Result::Result(pg_result* result) : result_(result) {}

int Result::rows() const { return libpq::get().PQntuples(result_.get()); }
int Result::columns() const { return libpq::get().PQnfields(result_.get()); }
std::string Result::column_name(int column) const {
  const char* name = libpq::get().PQfname(result_.get(), column);
  return name != nullptr ? name : "";
}

Row Result::row(int index) const {
  if (index < 0 || index >= rows()) {
    throw PgError("row " + std::to_string(index) + " asked of a result with " + std::to_string(rows()) + " rows", "");
  }
  return Row(*this, index);
}

std::int64_t Result::affected_rows() const {
  const std::string_view count = libpq::get().PQcmdTuples(result_.get());
  std::int64_t n = 0;
  std::from_chars(count.data(), count.data() + count.size(), n);
  return n;
}

Field Row::operator[](int column) const {
  if (column < 0 || column >= result_.columns()) {
    throw PgError("column " + std::to_string(column) + " asked of a result with " +
                      std::to_string(result_.columns()) + " columns", "");
  }
  return Field(result_, row_, column);
}

Field Row::operator[](std::string_view column) const {
  // Exact names: PQfnumber would fold unquoted names to lower case.
  for (int index = 0; index < result_.columns(); ++index) {
    if (libpq::get().PQfname(result_.handle(), index) == column) return Field(result_, row_, index);
  }
  throw PgError("no column \"" + std::string(column) + "\" in the result", "");
}

// --- Field --------------------------------------------------------------------------

bool Field::is_null() const { return libpq::get().PQgetisnull(result_.handle(), row_, column_) != 0; }

std::string_view Field::raw() const {
  return {libpq::get().PQgetvalue(result_.handle(), row_, column_),
          static_cast<std::size_t>(libpq::get().PQgetlength(result_.handle(), row_, column_))};
}

void Field::fail(std::string_view wanted) const {
  const std::string got = is_null() ? "NULL" : "\"" + std::string(raw()) + "\"";
  throw PgError("column \"" + result_.column_name(column_) + "\" is " + got + ", not " + std::string(wanted), "");
}

std::string Field::text() const {
  if (is_null()) fail("text");
  return std::string(raw());
}

std::string_view Field::text_view() const {
  if (is_null()) fail("text");
  return raw();
}

std::optional<std::string> Field::optional_text() const {
  if (is_null()) return std::nullopt;
  return std::string(raw());
}

std::int64_t Field::int64() const {
  if (is_null()) fail("an integer");
  const auto text = raw();
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) fail("an integer");
  return value;
}

bool Field::boolean() const {
  if (is_null()) fail("a boolean");
  const auto text = raw();
  if (text == "t") return true;
  if (text == "f") return false;
  fail("a boolean");
}

// --- Connection ---------------------------------------------------------------------

core::Result<Connection> Connection::open(const std::string& uri) {
  // Later entries override earlier ones: the URI may choose its own application name,
  // timeout and options, but the store's text is UTF-8 whatever the server's default.
  // A member paused or cut off in the middle of a transaction must not hold its row
  // locks (a run's lease among them) for ever: the server ends such a session after 5 s
  // idle in its transaction, and a write waits at most 2 s for a lock before it fails.
  const char* keys[] = {"application_name", "connect_timeout", "options", "dbname", "client_encoding", nullptr};
  const char* values[] = {"agentry", "10", "-c idle_in_transaction_session_timeout=5000 -c lock_timeout=2000",
                          uri.c_str(), "UTF8", nullptr};
  PGconn* conn = libpq::get().PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  std::string target = redact_uri(uri);
  if (conn == nullptr) {
    return core::fail(core::ErrorCode::internal, "cannot connect to PostgreSQL at " + target + ": out of memory");
  }
  if (libpq::get().PQstatus(conn) != CONNECTION_OK) {
    std::string message = trimmed_message(libpq::get().PQerrorMessage(conn));
    libpq::get().PQfinish(conn);
    return core::fail(core::ErrorCode::unavailable,
                      "cannot connect to PostgreSQL at " + target + ": " + message +
                          " (check the URI, that the server is running and that it accepts this user)");
  }
  libpq::get().PQsetNoticeProcessor(conn, log_notice, nullptr);
  return Connection(conn, std::move(target));
}

Connection::Connection(Connection&& other) noexcept
    : conn_(std::exchange(other.conn_, nullptr)),
      target_(std::move(other.target_)),
      prepared_(std::move(other.prepared_)),
      commit_actions_(std::move(other.commit_actions_)),
      wake_tag_(std::move(other.wake_tag_)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    if (conn_ != nullptr) libpq::get().PQfinish(conn_);
    conn_ = std::exchange(other.conn_, nullptr);
    target_ = std::move(other.target_);
    prepared_ = std::move(other.prepared_);
    commit_actions_ = std::move(other.commit_actions_);
    wake_tag_ = std::move(other.wake_tag_);
  }
  return *this;
}

void Connection::notify(std::string_view topic) {
  query("SELECT pg_notify('agentry', $1)", {std::string(topic) + " " + wake_tag_});
}

bool Connection::healthy() const { return conn_ != nullptr && libpq::get().PQstatus(conn_) == CONNECTION_OK; }

void Connection::reset() {
  if (conn_ == nullptr) return;
  libpq::get().PQreset(conn_);
  prepared_.clear();  // a new session has none of the old one's statements
}

Connection::~Connection() {
  if (conn_ != nullptr) libpq::get().PQfinish(conn_);
}

void Connection::exec(std::string_view sql) {
  const std::string text(sql);
  checked(libpq::get().PQexec(conn_, text.c_str()), sql);
}

const std::string& Connection::prepared(const std::string& sql) {
  if (auto it = prepared_.find(sql); it != prepared_.end()) return it->second;
  std::string name = "s" + std::to_string(prepared_.size() + 1);
  // No parameter types: the server infers each from its placeholder. Not cached when it
  // fails, so the error is the statement's own, every time.
  checked(libpq::get().PQprepare(conn_, name.c_str(), sql.c_str(), 0, nullptr), sql);
  return prepared_.emplace(sql, std::move(name)).first->second;
}

Result Connection::query(std::string_view sql, const std::vector<Param>& params) {
  const std::string& name = prepared(std::string(sql));
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p.value() ? p.value()->c_str() : nullptr);
  // All in text format, as the wrapper's accessors read it.
  return checked(libpq::get().PQexecPrepared(conn_, name.c_str(), static_cast<int>(values.size()), values.data(), nullptr,
                                nullptr, 0),
                 sql);
}

core::Result<void> check_uri(const std::string& uri) {
  try {
    libpq::get();
  } catch (const PgError& e) {
    return core::fail(core::ErrorCode::internal, e.what());
  }
  char* error = nullptr;
  PQconninfoOption* options = libpq::get().PQconninfoParse(uri.c_str(), &error);
  if (options != nullptr) {
    libpq::get().PQconninfoFree(options);
    return core::ok();
  }
  std::string why = error != nullptr ? trimmed_message(error) : "out of memory";
  libpq::get().PQfreemem(error);
  const std::string shown = redact_uri(uri);
  // libpq quotes the text it stumbled on, which may be part of a password: when the URI
  // holds one, the message stops before the quote.
  if (shown != uri && why.find('"') != std::string::npos) {
    why.resize(why.find('"'));
    while (!why.empty() && (why.back() == ' ' || why.back() == ':')) why.pop_back();
  }
  return core::fail(core::ErrorCode::validation, "not a PostgreSQL connection URI: " + shown + ": " + why);
}

Result Connection::checked(pg_result* raw, std::string_view sql) {
  Result result(raw);
  const auto status = raw != nullptr ? libpq::get().PQresultStatus(raw) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY) return result;

  const char* state = raw != nullptr ? libpq::get().PQresultErrorField(raw, PG_DIAG_SQLSTATE) : nullptr;
  const char* primary = raw != nullptr ? libpq::get().PQresultErrorField(raw, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  const char* detail = raw != nullptr ? libpq::get().PQresultErrorField(raw, PG_DIAG_MESSAGE_DETAIL) : nullptr;
  std::string code = state != nullptr ? state : "";
  if (code.empty() && libpq::get().PQstatus(conn_) == CONNECTION_BAD) code = sqlstate::connection_failure;
  std::string message = primary != nullptr ? primary : trimmed_message(libpq::get().PQerrorMessage(conn_));
  if (detail != nullptr) message += " (" + std::string(detail) + ")";
  // The statement's start says which one failed; parameters are not in it.
  const auto start = std::min(sql.find_first_not_of(" \n"), sql.size());
  std::string statement(sql.substr(start, 80));
  for (char& ch : statement) ch = (ch == '\n') ? ' ' : ch;
  if (sql.size() - start > 80) statement += "...";
  throw PgError("PostgreSQL at " + target_ + ": " + message + " [SQLSTATE " + (code.empty() ? "none" : code) +
                    "] in: " + statement,
                code);
}

}  // namespace agentry::pg_store
