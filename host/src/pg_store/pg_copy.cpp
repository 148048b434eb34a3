// COPY ... FROM STDIN (pg.hpp's CopyIn): rows streamed to the server a buffer at a time.

#include "pg_store/pg.hpp"

#include "pg_store/libpq.hpp"

#include <utility>

namespace agentry::pg_store {
namespace {

// Every result of the statement must be read before the connection can run another; the
// first one says how the COPY ended.
pg_result* first_result_draining_the_rest(pg_conn* conn) {
  pg_result* first = libpq::get().PQgetResult(conn);
  while (pg_result* more = libpq::get().PQgetResult(conn)) libpq::get().PQclear(more);
  return first;
}

}  // namespace

CopyIn Connection::copy_in(std::string_view sql) {
  const std::string text(sql);
  pg_result* raw = libpq::get().PQexec(conn_, text.c_str());
  if (raw != nullptr && libpq::get().PQresultStatus(raw) == PGRES_COPY_IN) {
    libpq::get().PQclear(raw);
    return CopyIn(*this, text);
  }
  checked(raw, sql);  // throws when the server refused the statement
  throw PgError("PostgreSQL at " + target_ + ": not a COPY ... FROM STDIN statement: " + text, "");
}

CopyIn::CopyIn(CopyIn&& other) noexcept
    : connection_(std::exchange(other.connection_, nullptr)), sql_(std::move(other.sql_)) {}

CopyIn::~CopyIn() { abort(); }

void CopyIn::abort() noexcept {
  if (connection_ == nullptr) return;
  pg_conn* conn = std::exchange(connection_, nullptr)->conn_;
  if (libpq::get().PQputCopyEnd(conn, "the client abandoned the copy") == 1) libpq::get().PQclear(first_result_draining_the_rest(conn));
}

void CopyIn::write(std::string_view data) {
  if (connection_ == nullptr) throw PgError("COPY data written after the copy ended", "");
  if (data.empty()) return;
  if (libpq::get().PQputCopyData(connection_->conn_, data.data(), static_cast<int>(data.size())) != 1) {
    const std::string why = trimmed_message(libpq::get().PQerrorMessage(connection_->conn_));
    const bool lost = libpq::get().PQstatus(connection_->conn_) == CONNECTION_BAD;
    throw PgError("PostgreSQL at " + connection_->target_ + ": cannot send COPY data: " + why,
                  lost ? std::string(sqlstate::connection_failure) : "");
  }
}

std::int64_t CopyIn::finish() {
  if (connection_ == nullptr) throw PgError("COPY finished twice", "");
  Connection& c = *std::exchange(connection_, nullptr);
  if (libpq::get().PQputCopyEnd(c.conn_, nullptr) != 1) {
    const bool lost = libpq::get().PQstatus(c.conn_) == CONNECTION_BAD;
    throw PgError("PostgreSQL at " + c.target_ + ": cannot end COPY: " + trimmed_message(libpq::get().PQerrorMessage(c.conn_)),
                  lost ? std::string(sqlstate::connection_failure) : "");
  }
  return c.checked(first_result_draining_the_rest(c.conn_), sql_).affected_rows();
}

}  // namespace agentry::pg_store
