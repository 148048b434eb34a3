#include "core/base64.hpp"

#include <gtest/gtest.h>

#include <random>

namespace agentry::core {
namespace {

TEST(Base64, EncodesTheRfc4648Vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_decode("Zm9vYmE="), "fooba");
  EXPECT_EQ(base64_decode(""), "");
}

TEST(Base64, RoundTripsEveryByteAndLength) {
  std::mt19937 gen(5);
  for (std::size_t n = 0; n < 300; ++n) {
    std::string bytes(n, '\0');
    for (auto& c : bytes) c = static_cast<char>(gen() & 0xff);
    auto back = base64_decode(base64_encode(bytes));
    ASSERT_TRUE(back) << n;
    EXPECT_EQ(*back, bytes) << n;
  }
}

TEST(Base64, RefusesWhatIsNotCanonicalPaddedBase64) {
  EXPECT_FALSE(base64_decode("Zg"));        // unpadded
  EXPECT_FALSE(base64_decode("Zg=a"));      // padding then data
  EXPECT_FALSE(base64_decode("Zm9v\n"));    // whitespace
  EXPECT_FALSE(base64_decode("Zm9-"));      // URL alphabet
  EXPECT_FALSE(base64_decode("Zh=="));      // dropped bits not zero
  EXPECT_FALSE(base64_decode("Zg==Zg=="));  // padding in the middle
  EXPECT_FALSE(base64_decode("===="));
}

}  // namespace
}  // namespace agentry::core
