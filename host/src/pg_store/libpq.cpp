#include "pg_store/libpq.hpp"

#include "pg_store/pg.hpp"

#include <dlfcn.h>

#include <string>

namespace agentry::pg_store::libpq {
namespace {

constexpr const char* kLibrary = "libpq.so.5";

template <class Function>
void bind(void* library, Function& out, const char* name) {
  void* symbol = dlsym(library, name);
  if (symbol == nullptr)
    throw PgError(std::string(kLibrary) + " has no " + name + ": a libpq older than PostgreSQL 10's", "");
  out = reinterpret_cast<Function>(symbol);
}

Functions load() {
  // Never closed: connections, results and the listener's thread may use it until exit.
  void* library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    throw PgError(std::string("a PostgreSQL store needs ") + kLibrary +
                      " (Debian: apt install libpq5): " + (why != nullptr ? why : "not found"),
                  "");
  }
  Functions f{};
  bind(library, f.PQclear, "PQclear");
  bind(library, f.PQcmdTuples, "PQcmdTuples");
  bind(library, f.PQconnectdbParams, "PQconnectdbParams");
  bind(library, f.PQconninfoFree, "PQconninfoFree");
  bind(library, f.PQconninfoParse, "PQconninfoParse");
  bind(library, f.PQconsumeInput, "PQconsumeInput");
  bind(library, f.PQerrorMessage, "PQerrorMessage");
  bind(library, f.PQexec, "PQexec");
  bind(library, f.PQexecPrepared, "PQexecPrepared");
  bind(library, f.PQfinish, "PQfinish");
  bind(library, f.PQfname, "PQfname");
  bind(library, f.PQfreemem, "PQfreemem");
  bind(library, f.PQgetResult, "PQgetResult");
  bind(library, f.PQgetisnull, "PQgetisnull");
  bind(library, f.PQgetlength, "PQgetlength");
  bind(library, f.PQgetvalue, "PQgetvalue");
  bind(library, f.PQnfields, "PQnfields");
  bind(library, f.PQnotifies, "PQnotifies");
  bind(library, f.PQntuples, "PQntuples");
  bind(library, f.PQprepare, "PQprepare");
  bind(library, f.PQputCopyData, "PQputCopyData");
  bind(library, f.PQputCopyEnd, "PQputCopyEnd");
  bind(library, f.PQreset, "PQreset");
  bind(library, f.PQresultErrorField, "PQresultErrorField");
  bind(library, f.PQresultStatus, "PQresultStatus");
  bind(library, f.PQsetNoticeProcessor, "PQsetNoticeProcessor");
  bind(library, f.PQsocket, "PQsocket");
  bind(library, f.PQstatus, "PQstatus");
  return f;
}

}  // namespace

const Functions& get() {
  static const Functions functions = load();  // a throw leaves it to the next call
  return functions;
}

}  // namespace agentry::pg_store::libpq
