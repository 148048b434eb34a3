// The pieces of a copy that need no database: the order of tables and the COPY text format.

#include "store_copy/copy_plan.hpp"
#include "store_copy/copy_text.hpp"

#include <gtest/gtest.h>

namespace agentry::store_copy {
namespace {

using Names = std::vector<std::string>;

TEST(StoreCopyPlan, ParentsComeBeforeChildrenAndTiesKeepTheirOrder) {
  const Names tables{"attempts", "runs", "sessions", "tags", "project_trust"};
  auto order = dependency_order(tables, {{"attempts", "sessions"}, {"sessions", "runs"}, {"tags", "tags"},
                                         {"attempts", "runs"}, {"runs", "schema_migrations"}});
  ASSERT_TRUE(order.ok()) << order.error().message;
  EXPECT_EQ(*order, (Names{"runs", "sessions", "attempts", "tags", "project_trust"}));
}

TEST(StoreCopyPlan, ACycleIsAnErrorNamingItsTables) {
  auto order = dependency_order({"a", "b", "c"}, {{"a", "b"}, {"b", "a"}});
  ASSERT_FALSE(order.ok());
  EXPECT_EQ(order.error().code, core::ErrorCode::conflict);
  EXPECT_NE(order.error().message.find("cycle: a, b"), std::string::npos) << order.error().message;
}

TEST(StoreCopyPlan, InternalTablesAndIdentifiersAreRecognised) {
  EXPECT_TRUE(is_internal_table("sqlite_sequence"));
  EXPECT_TRUE(is_internal_table("sqlite_stat1"));
  EXPECT_TRUE(is_internal_table("schema_migrations"));
  EXPECT_FALSE(is_internal_table("runs"));
  EXPECT_EQ(quote_identifier("runs"), "\"runs\"");
  EXPECT_EQ(quote_identifier("we\"ird"), "\"we\"\"ird\"");
}

TEST(StoreCopyText, EscapesWhatTheFormatReservesAndNothingElse) {
  std::string row;
  append_copy_field(row, "plain ünïcödé ✓ \"quoted\" 'single'");
  row += '\t';
  append_copy_field(row, "tab\there\nnewline\rreturn\\backslash\\N");
  row += '\t';
  append_copy_null(row);
  EXPECT_EQ(row, "plain ünïcödé ✓ \"quoted\" 'single'\ttab\\there\\nnewline\\rreturn\\\\backslash\\\\N\t\\N");
}

}  // namespace
}  // namespace agentry::store_copy
