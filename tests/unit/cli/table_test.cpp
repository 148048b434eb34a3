#include "cli/table.hpp"

#include <gtest/gtest.h>

namespace agentry::cli {
namespace {

TEST(TableTest, AlignsColumnsAndLeavesTheLastOneUnpadded) {
  Table table({"RUN", "STATUS", "NAME"});
  table.add_row({"abc", "running", "x"});
  table.add_row({"a", "success", ""});
  EXPECT_EQ(table.render(),
            "RUN  STATUS   NAME\n"
            "abc  running  x\n"
            "a    success\n");
}

TEST(TableTest, CountsCodePointsNotBytesAndKeepsCellsOnOneLine) {
  Table table({"A", "B"});
  table.add_row({"é→", "two\nlines"});
  table.add_row({"ab", "z"});
  EXPECT_EQ(table.render(),
            "A   B\n"
            "é→  two …\n"
            "ab  z\n");
}

TEST(TableTest, MissingCellsAreEmpty) {
  Table table({"A", "B", "C"});
  table.add_row({"1"});
  EXPECT_EQ(table.render(), "A  B  C\n1\n");
}

TEST(TableTest, TruncateCutsOnCodePoints) {
  EXPECT_EQ(truncate("hello", 10), "hello");
  EXPECT_EQ(truncate("hello world", 5), "hell…");
  EXPECT_EQ(truncate("ééééé", 3), "éé…");
  EXPECT_EQ(display_width("ééé"), 3u);
}

}  // namespace
}  // namespace agentry::cli
