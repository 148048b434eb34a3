#include "definitions/prices.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace agentry::definitions {
namespace {

TEST(Prices, ModelsArePricedPerMillionTokens) {
  auto file = parse_prices("models:\n  m1:\n    input: 3\n    cachedInput: 0.30\n    output: 15.5\n", "prices.yaml");
  EXPECT_TRUE(file.errors.empty());
  ASSERT_EQ(file.prices.size(), 1u);
  EXPECT_DOUBLE_EQ(file.prices.at("m1").input, 3.0);
  EXPECT_DOUBLE_EQ(file.prices.at("m1").cached_input, 0.3);
  EXPECT_DOUBLE_EQ(file.prices.at("m1").output, 15.5);
}

TEST(Prices, AModelPricedInPartOrBadlyIsLeftOutWithAnErrorNamingTheField) {
  auto file = parse_prices(
      "models:\n  half:\n    input: 3\n    output: 15\n  bad:\n    input: cheap\n    cachedInput: 1\n    output: 1\n"
      "  negative:\n    input: -1\n    cachedInput: 1\n    output: 1\n  good:\n    input: 1\n    cachedInput: 1\n"
      "    output: 1\n    extra: 2\ncurrency: EUR\n",
      "prices.yaml");
  EXPECT_EQ(file.prices.size(), 1u);
  EXPECT_TRUE(file.prices.contains("good"));
  ASSERT_EQ(file.errors.size(), 3u);
  EXPECT_EQ(file.errors[0].field, "models.half.cachedInput");
  EXPECT_EQ(file.errors[1].field, "models.bad.input");
  EXPECT_EQ(file.errors[2].field, "models.negative.input");
  ASSERT_EQ(file.warnings.size(), 2u);
  EXPECT_EQ(file.warnings[0].field, "currency");
  EXPECT_EQ(file.warnings[1].field, "models.good.extra");
}

TEST(Prices, NoFileIsNoPrices) {
  auto none = load_prices(std::filesystem::temp_directory_path() / "agentry-no-such-config-dir");
  EXPECT_TRUE(none.prices.empty());
  EXPECT_TRUE(none.errors.empty());
}

TEST(Prices, TheExampleParsesCleanly) {
  const char* source = std::getenv("AGENTRY_SOURCE_DIR");  // ctest sets it
  if (source == nullptr || *source == '\0') GTEST_SKIP() << "AGENTRY_SOURCE_DIR is not set";
  auto example = load_prices(std::filesystem::path(source) / "config");
  EXPECT_TRUE(example.errors.empty());
  EXPECT_TRUE(example.warnings.empty());
  EXPECT_FALSE(example.prices.empty());
}

}  // namespace
}  // namespace agentry::definitions
