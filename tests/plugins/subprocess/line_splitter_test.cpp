// The shared LineSplitter (plugins/common) on its own: chunking, truncation, the tail at EOF.
#include "agentry/plugin_common/line_splitter.hpp"

#include <gtest/gtest.h>

namespace agentry::plugin_common {
namespace {

TEST(LineSplitter, SplitsLinesAcrossFeeds) {
  LineSplitter splitter(100, LineSplitter::Overflow::split);
  auto lines = splitter.feed("one\ntw");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, "one");
  EXPECT_TRUE(lines[0].ends_line);
  lines = splitter.feed("o\n\nthree");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "two");
  EXPECT_EQ(lines[1].text, "");
  auto rest = splitter.finish();
  ASSERT_TRUE(rest.has_value());
  EXPECT_EQ(rest->text, "three");
  EXPECT_FALSE(rest->ends_line);
  EXPECT_FALSE(splitter.finish().has_value());
}

TEST(LineSplitter, SplitModeChunksLongLinesWithoutLosingBytes) {
  LineSplitter splitter(4, LineSplitter::Overflow::split);
  const auto lines = splitter.feed("abcdefghij\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text, "abcd");
  EXPECT_FALSE(lines[0].ends_line);
  EXPECT_EQ(lines[1].text, "efgh");
  EXPECT_EQ(lines[2].text, "ij");
  EXPECT_TRUE(lines[2].ends_line);
}

TEST(LineSplitter, SplitModeNeverCutsAUtf8Character) {
  LineSplitter splitter(4, LineSplitter::Overflow::split);
  const auto lines = splitter.feed("abc\xC3\xA9z\n");  // "abcéz": é straddles the limit
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "abc");
  EXPECT_EQ(lines[1].text, "\xC3\xA9z");
}

TEST(LineSplitter, TruncateModeKeepsThePrefixAndCountsTheRest) {
  LineSplitter splitter(3, LineSplitter::Overflow::truncate);
  auto lines = splitter.feed("abcdef");
  EXPECT_TRUE(lines.empty());
  lines = splitter.feed("gh\nxy\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "abc");
  EXPECT_EQ(lines[0].dropped, 5u);
  EXPECT_EQ(lines[1].text, "xy");
  EXPECT_EQ(lines[1].dropped, 0u);
}

TEST(Utf8PrefixLength, BacksOffToACharacterBoundary) {
  EXPECT_EQ(utf8_prefix_length("abc", 10), 3u);
  EXPECT_EQ(utf8_prefix_length("ab\xE2\x82\xAC", 3), 2u);  // € is 3 bytes
  EXPECT_EQ(utf8_prefix_length("ab\xE2\x82\xAC", 5), 5u);
}

}  // namespace
}  // namespace agentry::plugin_common
