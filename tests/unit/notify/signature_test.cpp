#include "notify/signature.hpp"

#include <gtest/gtest.h>

namespace agentry::notify {
namespace {

// The HMAC itself is tested against RFC 4231 in tests/unit/crypto/hmac_test.cpp.
TEST(Signature, HeaderNamesTheAlgorithm) {
  EXPECT_EQ(signature_header("Jefe", "what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

}  // namespace
}  // namespace agentry::notify
