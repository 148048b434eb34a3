#include "pg_store/pg.hpp"

#include "support/postgres_cluster.hpp"
#include "support/socket_io.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

namespace agentry::pg_store {
namespace {

Connection connect(const std::string& uri) {
  auto c = Connection::open(uri);
  if (!c.ok()) throw std::runtime_error(c.error().message);
  return std::move(c).value();
}

// The SQLSTATE `fn` fails with; fails the test if it does not throw PgError.
template <class F>
std::string sqlstate_of(F&& fn) {
  try {
    fn();
  } catch (const PgError& e) {
    return e.sqlstate();
  }
  ADD_FAILURE() << "no PgError was thrown";
  return {};
}

class PgConnection : public test::PostgresTest {};

TEST_F(PgConnection, ConnectsAndRuns) {
  auto c = connect(database_uri());
  auto r = c.query("SELECT current_database() AS db, 1 + 1 AS two");
  ASSERT_EQ(r.rows(), 1);
  EXPECT_EQ(r.row(0)["db"].text(), database_uri().substr(database_uri().rfind('/') + 1));
  EXPECT_EQ(r.row(0)["two"].int64(), 2);
  // The store's text is UTF-8 whatever the server's default encoding.
  EXPECT_EQ(c.query("SHOW client_encoding").row(0)[0].text(), "UTF8");
  EXPECT_EQ(c.target(), database_uri());
}

TEST_F(PgConnection, ParametersRoundTrip) {
  auto c = connect(database_uri());
  c.exec("CREATE TABLE t (s text, i bigint, b boolean, o text)");
  const std::string text = "it's \"quoted\"; -- not a comment \\ $1 ünïcödé ✓ 日本 🦀";
  const auto min = std::numeric_limits<std::int64_t>::min();
  const auto max = std::numeric_limits<std::int64_t>::max();
  auto inserted = c.query("INSERT INTO t VALUES ($1, $2, $3, $4), ($5, $6, $7, $8)",
                          {text, min, true, std::nullopt, std::optional<std::string>("present"), max, false, ""});
  EXPECT_EQ(inserted.affected_rows(), 2);

  auto r = c.query("SELECT s, i, b, o FROM t ORDER BY i");
  ASSERT_EQ(r.rows(), 2);
  EXPECT_EQ(r.row(0)["s"].text(), text);
  EXPECT_EQ(r.row(0)["i"].int64(), min);
  EXPECT_TRUE(r.row(0)["b"].boolean());
  EXPECT_TRUE(r.row(0)["o"].is_null());
  EXPECT_EQ(r.row(0)["o"].optional_text(), std::nullopt);
  EXPECT_EQ(r.row(1)[0].text(), "present");
  EXPECT_EQ(r.row(1)[1].int64(), max);
  EXPECT_FALSE(r.row(1)[2].boolean());
  EXPECT_EQ(r.row(1)[3].optional_text(), std::optional<std::string>(""));  // empty is not NULL
}

TEST_F(PgConnection, AParameterIsNeverSql) {
  auto c = connect(database_uri());
  c.exec("CREATE TABLE t (s text)");
  c.query("INSERT INTO t VALUES ($1)", {"x'); DROP TABLE t; --"});
  EXPECT_EQ(c.query("SELECT s FROM t").row(0)[0].text(), "x'); DROP TABLE t; --");
}

TEST_F(PgConnection, WrongTypesAndNullsAreErrorsNamingTheColumn) {
  auto c = connect(database_uri());
  auto r = c.query("SELECT NULL::text AS n, 'abc'::text AS s, 12::bigint AS i");
  EXPECT_THROW((void)r.row(0)["n"].text(), PgError);
  EXPECT_THROW((void)r.row(0)["s"].int64(), PgError);
  EXPECT_THROW((void)r.row(0)["i"].boolean(), PgError);
  EXPECT_THROW((void)r.row(0)["missing"], PgError);
  EXPECT_THROW((void)r.row(1), PgError);
  try {
    (void)r.row(0)["s"].int64();
  } catch (const PgError& e) {
    EXPECT_NE(std::string(e.what()).find("\"s\""), std::string::npos) << e.what();
  }
}

TEST_F(PgConnection, AUniqueViolationCarriesItsSqlstate) {
  auto c = connect(database_uri());
  c.exec("CREATE TABLE t (id text PRIMARY KEY)");
  c.query("INSERT INTO t VALUES ($1)", {"a"});
  EXPECT_EQ(sqlstate_of([&] { c.query("INSERT INTO t VALUES ($1)", {"a"}); }), sqlstate::unique_violation);
  // A syntax error is another class; the message says what and where.
  try {
    c.exec("SELEC 1");
    ADD_FAILURE() << "no error";
  } catch (const PgError& e) {
    EXPECT_EQ(e.sqlstate(), "42601");
    EXPECT_NE(std::string(e.what()).find("SELEC 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("syntax error"), std::string::npos) << e.what();
  }
  // The connection is usable after a failed statement outside a transaction.
  EXPECT_EQ(c.query("SELECT count(*) FROM t").row(0)[0].int64(), 1);
}

TEST_F(PgConnection, AWriteSkewUnderSerializableIsASerializationFailure) {
  // Two serializable transactions each read what the other writes: PostgreSQL lets one
  // commit and fails the other with 40001, the error the store will retry.
  auto a = connect(database_uri());
  auto b = connect(database_uri());
  a.exec("CREATE TABLE t (v bigint)");
  a.exec("BEGIN ISOLATION LEVEL SERIALIZABLE");
  b.exec("BEGIN ISOLATION LEVEL SERIALIZABLE");
  (void)a.query("SELECT count(*) FROM t");
  (void)b.query("SELECT count(*) FROM t");
  a.query("INSERT INTO t VALUES ($1)", {1});
  b.query("INSERT INTO t VALUES ($1)", {2});
  a.exec("COMMIT");
  const auto state = sqlstate_of([&] { b.exec("COMMIT"); });
  EXPECT_EQ(state, sqlstate::serialization_failure);
}

TEST(PgConnectionOpen, NothingListeningIsAClearErrorWithoutThePassword) {
  const std::string uri = "postgresql://agentry:s3cret@127.0.0.1:" + std::to_string(test::free_loopback_port()) + "/x";
  auto c = Connection::open(uri);
  ASSERT_FALSE(c.ok());
  const auto& message = c.error().message;
  EXPECT_NE(message.find("cannot connect to PostgreSQL at postgresql://agentry:***@127.0.0.1:"), std::string::npos)
      << message;
  EXPECT_NE(message.find("Connection refused"), std::string::npos) << message;
  EXPECT_EQ(message.find("s3cret"), std::string::npos) << message;
}

TEST(PgConnectionOpen, AMalformedUriIsAClearError) {
  auto c = Connection::open("postgresql://127.0.0.1:notaport/x");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("postgresql://127.0.0.1:notaport/x"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("notaport"), std::string::npos) << c.error().message;
}

TEST_F(PgConnection, AnUnknownDatabaseIsAClearError) {
  const auto uri = cluster().uri("no_such_database");
  auto c = Connection::open(uri);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find(uri), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("does not exist"), std::string::npos) << c.error().message;
}

TEST(PgRedactUri, HidesEveryFormOfPassword) {
  EXPECT_EQ(redact_uri("postgresql://u:pw@h:5432/db"), "postgresql://u:***@h:5432/db");
  EXPECT_EQ(redact_uri("postgres://u:p%40w@h/db?sslmode=require"), "postgres://u:***@h/db?sslmode=require");
  EXPECT_EQ(redact_uri("postgresql://u@h/db?password=pw&sslmode=require"),
            "postgresql://u@h/db?password=***&sslmode=require");
  EXPECT_EQ(redact_uri("host=h password=pw dbname=db"), "host=h password=*** dbname=db");
  EXPECT_EQ(redact_uri("postgresql://h:5432/db"), "postgresql://h:5432/db");
  EXPECT_EQ(redact_uri("postgresql://u@h/db"), "postgresql://u@h/db");
}

}  // namespace
}  // namespace agentry::pg_store
