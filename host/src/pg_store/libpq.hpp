// libpq, opened when the first PostgreSQL connection is, instead of linked: its chain
// (Kerberos, LDAP, SASL, GnuTLS: about 20 libraries) cost every agentry process some
// 14 ms of loading at start, `agentry --version` and every SQLite daemon included.
// pg_store calls libpq through get(), by libpq's own names.
#pragma once

#include <libpq-fe.h>

namespace agentry::pg_store::libpq {

struct Functions {
  decltype(&::PQclear) PQclear;
  decltype(&::PQcmdTuples) PQcmdTuples;
  decltype(&::PQconnectdbParams) PQconnectdbParams;
  decltype(&::PQconninfoFree) PQconninfoFree;
  decltype(&::PQconninfoParse) PQconninfoParse;
  decltype(&::PQconsumeInput) PQconsumeInput;
  decltype(&::PQerrorMessage) PQerrorMessage;
  decltype(&::PQexec) PQexec;
  decltype(&::PQexecPrepared) PQexecPrepared;
  decltype(&::PQfinish) PQfinish;
  decltype(&::PQfname) PQfname;
  decltype(&::PQfreemem) PQfreemem;
  decltype(&::PQgetResult) PQgetResult;
  decltype(&::PQgetisnull) PQgetisnull;
  decltype(&::PQgetlength) PQgetlength;
  decltype(&::PQgetvalue) PQgetvalue;
  decltype(&::PQnfields) PQnfields;
  decltype(&::PQnotifies) PQnotifies;
  decltype(&::PQntuples) PQntuples;
  decltype(&::PQprepare) PQprepare;
  decltype(&::PQputCopyData) PQputCopyData;
  decltype(&::PQputCopyEnd) PQputCopyEnd;
  decltype(&::PQreset) PQreset;
  decltype(&::PQresultErrorField) PQresultErrorField;
  decltype(&::PQresultStatus) PQresultStatus;
  decltype(&::PQsetNoticeProcessor) PQsetNoticeProcessor;
  decltype(&::PQsocket) PQsocket;
  decltype(&::PQstatus) PQstatus;
};

/// Opens libpq.so.5 on the first call. Throws PgError saying what to install when it
/// cannot, and tries again on the next call.
const Functions& get();

}  // namespace agentry::pg_store::libpq
