#include "core/usage.hpp"

#include <gtest/gtest.h>

namespace agentry::core {
namespace {

TEST(Usage, AnEventsIncrementIsReadWithItsModelAndBadCountsAreZero) {
  auto u = usage_of_event(boost::json::object{
      {"inputTokens", 10}, {"cachedInputTokens", 4}, {"outputTokens", -3}, {"reasoningTokens", "x"}, {"model", "m1"}});
  EXPECT_EQ(u.model, "m1");
  EXPECT_EQ(u.tokens.input, 10);
  EXPECT_EQ(u.tokens.cached_input, 4);
  EXPECT_EQ(u.tokens.output, 0);
  EXPECT_EQ(u.tokens.reasoning, 0);
  EXPECT_EQ(usage_of_event({{"inputTokens", 1}}).model, std::nullopt);
}

TEST(Usage, CostIsPricedPerMillionTokensByKind) {
  PriceTable prices{{"m1", {3.0, 0.3, 15.0}}};
  auto cost = cost_of({"m1", {1'000'000, 2'000'000, 100'000, 50}}, prices);
  ASSERT_TRUE(cost);
  EXPECT_DOUBLE_EQ(*cost, 3.0 + 0.6 + 1.5);
}

TEST(Usage, AnUnknownModelGivesCostNullWithAWarningNeverAWrongNumber) {
  PriceTable prices{{"m1", {3.0, 0.3, 15.0}}};
  std::vector<ModelUsage> usage{{"m1", {1'000'000, 0, 0, 0}}, {"m2", {5, 0, 5, 0}}, {std::nullopt, {1, 0, 0, 0}}};
  std::vector<std::string> warnings;
  auto out = usage_json(usage, prices, &warnings);
  EXPECT_TRUE(out.at("costUsd").is_null()) << "a total over an unpriced model is not a number";
  EXPECT_EQ(out.at("inputTokens").as_int64(), 1'000'006);
  const auto& models = out.at("models").as_array();
  ASSERT_EQ(models.size(), 3u);
  EXPECT_DOUBLE_EQ(models[0].at("costUsd").as_double(), 3.0);
  EXPECT_TRUE(models[1].at("costUsd").is_null());
  EXPECT_TRUE(models[2].at("model").is_null());
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("m2"), std::string::npos);
}

TEST(Usage, StoredTotalsRoundTripAndAddPerModel) {
  std::vector<ModelUsage> usage;
  add_usage(usage, {"m1", {1, 2, 3, 4}});
  add_usage(usage, {std::nullopt, {5, 0, 0, 0}});
  add_usage(usage, {"m1", {1, 1, 1, 1}});
  auto back = decode_usage(encode_usage(usage));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].model, "m1");
  EXPECT_EQ(back[0].tokens.input, 2);
  EXPECT_EQ(back[0].tokens.reasoning, 5);
  EXPECT_EQ(back[1].model, std::nullopt);
  EXPECT_TRUE(decode_usage(std::string("not json")).empty());
}

}  // namespace
}  // namespace agentry::core
