#include "crypto/hmac.hpp"

#include <gtest/gtest.h>

namespace agentry::crypto {
namespace {

// RFC 4231, test case 2 (a key shorter than the block).
TEST(Hmac, MatchesRfc4231TestCase2) {
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

// RFC 4231, test case 1: a 20-byte 0x0b key over "Hi There".
TEST(Hmac, MatchesRfc4231TestCase1) {
  EXPECT_EQ(hmac_sha256_hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(Hmac, AnEmptyKeyAndMessageStillGiveADigest) { EXPECT_EQ(hmac_sha256_hex("", "").size(), 64u); }

TEST(ConstantTimeEqual, ComparesContentsAndLengths) {
  EXPECT_TRUE(constant_time_equal("", ""));
  EXPECT_TRUE(constant_time_equal("sha256=abc", "sha256=abc"));
  EXPECT_FALSE(constant_time_equal("sha256=abc", "sha256=abd"));
  EXPECT_FALSE(constant_time_equal("abc", "abcd"));
  EXPECT_FALSE(constant_time_equal("abcd", "abc"));
  EXPECT_FALSE(constant_time_equal("", "a"));
  // A difference in the bytes past the shorter one's end still counts.
  EXPECT_FALSE(constant_time_equal(std::string("a\0", 2), "a"));
}

}  // namespace
}  // namespace agentry::crypto
