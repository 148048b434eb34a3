#include "notify/signature.hpp"

#include <gtest/gtest.h>

namespace agentry::notify {
namespace {

// RFC 4231, test case 2 (a key shorter than the block).
TEST(Signature, MatchesRfc4231TestCase2) {
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

// RFC 4231, test case 1: a 20-byte 0x0b key over "Hi There".
TEST(Signature, MatchesRfc4231TestCase1) {
  EXPECT_EQ(hmac_sha256_hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(Signature, HeaderNamesTheAlgorithm) {
  EXPECT_EQ(signature_header("Jefe", "what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(hmac_sha256_hex("", "").size(), 64u);
}

}  // namespace
}  // namespace agentry::notify
