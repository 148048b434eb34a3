// Connection::copy_in (COPY ... FROM STDIN) and check_uri against a real PostgreSQL.

#include "pg_store/pg.hpp"

#include "support/postgres_cluster.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace agentry::pg_store {
namespace {

Connection connect(const std::string& uri) {
  auto c = Connection::open(uri);
  if (!c.ok()) throw std::runtime_error(c.error().message);
  return std::move(c).value();
}

std::int64_t count(Connection& c, const std::string& table) {
  return c.query("SELECT count(*) FROM " + table).row(0)[0].int64();
}

class PgCopyIn : public test::PostgresTest {};

TEST_F(PgCopyIn, StoresEveryRowByteForByteAndSaysHowMany) {
  auto c = connect(database_uri());
  c.exec("CREATE TABLE t (id bigint GENERATED ALWAYS AS IDENTITY, s text, b boolean, n text)");
  auto copy = c.copy_in("COPY t (id, s, b, n) FROM STDIN");
  // Escapes split across writes still arrive whole; an identity column takes the given ids.
  copy.write("7\ttab\\there, newline\\nthere, back\\\\slash ✓\tt\t\\N\n8\tpla");
  copy.write("in\tf\tx\n");
  EXPECT_EQ(copy.finish(), 2);
  auto r = c.query("SELECT id, s, b, n FROM t ORDER BY id");
  ASSERT_EQ(r.rows(), 2);
  EXPECT_EQ(r.row(0)[0].int64(), 7);
  EXPECT_EQ(r.row(0)[1].text(), "tab\there, newline\nthere, back\\slash ✓");
  EXPECT_TRUE(r.row(0)[2].boolean());
  EXPECT_TRUE(r.row(0)[3].is_null());
  EXPECT_EQ(r.row(1)[1].text(), "plain");
  EXPECT_FALSE(r.row(1)[2].boolean());
}

TEST_F(PgCopyIn, ABadRowFailsAtFinishWithItsSqlstateAndTheConnectionGoesOn) {
  auto c = connect(database_uri());
  c.exec("CREATE TABLE t (i bigint)");
  c.exec("BEGIN");
  auto copy = c.copy_in("COPY t (i) FROM STDIN");
  copy.write("1\nnot a number\n");
  try {
    copy.finish();
    ADD_FAILURE() << "the bad row was accepted";
  } catch (const PgError& e) {
    EXPECT_EQ(e.sqlstate(), "22P02") << e.what();  // invalid_text_representation
    EXPECT_NE(std::string(e.what()).find("not a number"), std::string::npos) << e.what();
  }
  c.exec("ROLLBACK");
  EXPECT_EQ(count(c, "t"), 0);
}

TEST_F(PgCopyIn, AnAbandonedCopyKeepsNoRow) {
  auto c = connect(database_uri());
  c.exec("CREATE TABLE t (i bigint)");
  {
    auto copy = c.copy_in("COPY t (i) FROM STDIN");
    copy.write("1\n2\n");
  }
  EXPECT_EQ(count(c, "t"), 0);
}

TEST_F(PgCopyIn, OnlyACopyFromStdinIsAccepted) {
  auto c = connect(database_uri());
  EXPECT_THROW(c.copy_in("SELECT 1"), PgError);
  EXPECT_THROW(c.copy_in("COPY no_such_table FROM STDIN"), PgError);
  EXPECT_EQ(c.query("SELECT 1").row(0)[0].int64(), 1);
}

TEST(PgCheckUri, AcceptsWhatLibpqParsesAndNamesWhatItCannotWithoutThePassword) {
  EXPECT_TRUE(check_uri("postgresql://agentry:pw@db.internal:5432/agentry?sslmode=require").ok());
  EXPECT_TRUE(check_uri("postgres://db/agentry").ok());
  auto unknown = check_uri("postgresql://agentry@db/agentry?colour=blue");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, core::ErrorCode::validation);
  EXPECT_NE(unknown.error().message.find("colour"), std::string::npos) << unknown.error().message;
  auto secret = check_uri("postgresql://agentry:s3cret%zz@db/agentry");
  ASSERT_FALSE(secret.ok());
  EXPECT_NE(secret.error().message.find("postgresql://agentry:***@db/agentry"), std::string::npos)
      << secret.error().message;
  EXPECT_EQ(secret.error().message.find("s3cret"), std::string::npos) << secret.error().message;
}

}  // namespace
}  // namespace agentry::pg_store
