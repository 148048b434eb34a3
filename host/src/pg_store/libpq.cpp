#include "pg_store/libpq.hpp"

#include "core/lazy_library.hpp"
#include "pg_store/pg.hpp"

#include <stdexcept>
#include <string>

namespace agentry::pg_store::libpq {
namespace {

Functions load() {
  try {
    const core::LazyLibrary library("libpq.so.5", "libpq5");
    Functions f{};
    library.bind(f.PQclear, "PQclear");
    library.bind(f.PQcmdTuples, "PQcmdTuples");
    library.bind(f.PQconnectdbParams, "PQconnectdbParams");
    library.bind(f.PQconninfoFree, "PQconninfoFree");
    library.bind(f.PQconninfoParse, "PQconninfoParse");
    library.bind(f.PQconsumeInput, "PQconsumeInput");
    library.bind(f.PQerrorMessage, "PQerrorMessage");
    library.bind(f.PQexec, "PQexec");
    library.bind(f.PQexecPrepared, "PQexecPrepared");
    library.bind(f.PQfinish, "PQfinish");
    library.bind(f.PQfname, "PQfname");
    library.bind(f.PQfreemem, "PQfreemem");
    library.bind(f.PQgetResult, "PQgetResult");
    library.bind(f.PQgetisnull, "PQgetisnull");
    library.bind(f.PQgetlength, "PQgetlength");
    library.bind(f.PQgetvalue, "PQgetvalue");
    library.bind(f.PQnfields, "PQnfields");
    library.bind(f.PQnotifies, "PQnotifies");
    library.bind(f.PQntuples, "PQntuples");
    library.bind(f.PQprepare, "PQprepare");
    library.bind(f.PQputCopyData, "PQputCopyData");
    library.bind(f.PQputCopyEnd, "PQputCopyEnd");
    library.bind(f.PQreset, "PQreset");
    library.bind(f.PQresultErrorField, "PQresultErrorField");
    library.bind(f.PQresultStatus, "PQresultStatus");
    library.bind(f.PQsetNoticeProcessor, "PQsetNoticeProcessor");
    library.bind(f.PQsocket, "PQsocket");
    library.bind(f.PQstatus, "PQstatus");
    return f;
  } catch (const std::runtime_error& e) {
    throw PgError(std::string("a PostgreSQL store needs libpq: ") + e.what(), "");
  }
}

}  // namespace

const Functions& get() {
  static const Functions functions = load();  // a throw leaves it to the next call
  return functions;
}

}  // namespace agentry::pg_store::libpq
