#include "core/utf8.hpp"

#include <gtest/gtest.h>

namespace agentry::core {
namespace {

TEST(Utf8, AcceptsWellFormedTextOfEveryLength) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));  // é € 😀
  EXPECT_TRUE(is_valid_utf8("\xF4\x8F\xBF\xBF"));                         // U+10FFFF
}

TEST(Utf8, FindsTheFirstIllFormedByte) {
  EXPECT_EQ(first_invalid_utf8("ab\xE9z"), 2u);             // Latin-1 é
  EXPECT_EQ(first_invalid_utf8("\xC0\xAF"), 0u);            // overlong '/'
  EXPECT_EQ(first_invalid_utf8("x\xED\xA0\x80"), 1u);       // a surrogate
  EXPECT_EQ(first_invalid_utf8("\xF4\x90\x80\x80"), 0u);    // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("ok\xE2\x82"), 2u);          // cut short
  EXPECT_EQ(first_invalid_utf8("\x80"), 0u);                // a lone continuation
}

TEST(Utf8, SanitizingReplacesEachBadByteAndKeepsTheRest) {
  EXPECT_EQ(sanitize_utf8("caf\xE9!"), "caf\xEF\xBF\xBD!");
  EXPECT_EQ(sanitize_utf8("\xE2\x82\xAC"), "\xE2\x82\xAC");
  const std::string cleaned = sanitize_utf8("\xFF\xFE\xC3");
  EXPECT_EQ(cleaned, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_TRUE(is_valid_utf8(cleaned));
}

}  // namespace
}  // namespace agentry::core
