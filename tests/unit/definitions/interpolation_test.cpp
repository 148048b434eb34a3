#include "definitions/interpolation.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;

std::string expand(std::string_view text, const EnvLookup& env) {
  auto result = interpolate(text, env);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  return result.ok() ? result.value() : std::string("<error>");
}

TEST(Interpolation, LeavesPlainTextAlone) {
  EXPECT_EQ(expand("no variables, just $ and { }", fake_env()), "no variables, just $ and { }");
}

TEST(Interpolation, ReplacesSetVariables) {
  const auto env = fake_env({{"HOME", "/home/u"}, {"MODEL", "big"}});
  EXPECT_EQ(expand("${HOME}/work with ${MODEL}", env), "/home/u/work with big");
}

TEST(Interpolation, ColonDashFallsBackWhenUnsetOrEmpty) {
  const auto env = fake_env({{"EMPTY", ""}, {"SET", "x"}});
  EXPECT_EQ(expand("${UNSET:-dflt}", env), "dflt");
  EXPECT_EQ(expand("${EMPTY:-dflt}", env), "dflt");
  EXPECT_EQ(expand("${SET:-dflt}", env), "x");
  EXPECT_EQ(expand("${UNSET:-}", env), "");
}

TEST(Interpolation, DashFallsBackOnlyWhenUnset) {
  const auto env = fake_env({{"EMPTY", ""}});
  EXPECT_EQ(expand("${UNSET-dflt}", env), "dflt");
  EXPECT_EQ(expand("[${EMPTY-dflt}]", env), "[]");
}

TEST(Interpolation, FallbacksMayNest) {
  const auto env = fake_env({{"INNER", "in"}});
  EXPECT_EQ(expand("${OUTER:-${INNER}}", env), "in");
  EXPECT_EQ(expand("${OUTER:-${MISSING:-deep}}!", env), "deep!");
}

TEST(Interpolation, UnusedFallbackIsNotEvaluated) {
  const auto env = fake_env({{"SET", "v"}});
  EXPECT_EQ(expand("${SET:-${NOT_SET}}", env), "v");
}

TEST(Interpolation, DoubleDollarIsALiteral) {
  const auto env = fake_env({{"X", "1"}});
  EXPECT_EQ(expand("$${X} and ${X}", env), "${X} and 1");
  EXPECT_EQ(expand("${UNSET:-a $${b} c}", env), "a ${b} c");
}

TEST(Interpolation, ValuesAreNotReinterpolated) {
  const auto env = fake_env({{"X", "${Y}"}});
  EXPECT_EQ(expand("${X}", env), "${Y}");
}

TEST(Interpolation, UnsetVariableNamesItAndSuggestsAFallback) {
  auto result = interpolate("model ${AGENT_MODEL}", fake_env());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, core::ErrorCode::validation);
  EXPECT_NE(result.error().message.find("'AGENT_MODEL' is not set"), std::string::npos);
  EXPECT_NE(result.error().message.find("${AGENT_MODEL:-default}"), std::string::npos);
  EXPECT_EQ(result.error().details.at("variable").as_string(), "AGENT_MODEL");
}

TEST(Interpolation, MalformedReferencesAreErrors) {
  EXPECT_FALSE(interpolate("${", fake_env()).ok());
  EXPECT_FALSE(interpolate("${1ABC}", fake_env()).ok());
  EXPECT_FALSE(interpolate("${A:-never closed", fake_env()).ok());
  EXPECT_FALSE(interpolate("${A?oops}", fake_env()).ok());
  EXPECT_FALSE(interpolate("${A", fake_env()).ok());
}

TEST(Interpolation, DeepNestingIsRefusedWithoutRecursion) {
  // 20,000 nested fallbacks (the shape that overflowed the stack): one clear error.
  std::string deep;
  for (int i = 0; i < 20000; ++i) deep += "${X:-";
  deep += "end";
  deep += std::string(20000, '}');
  auto result = interpolate(deep, fake_env());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("nested more than 32 deep"), std::string::npos) << result.error().message;
  // At the limit it still works, and the innermost fallback wins.
  std::string at_limit;
  for (int i = 0; i < 32; ++i) at_limit += "${X:-";
  at_limit += "end" + std::string(32, '}');
  EXPECT_EQ(expand(at_limit, fake_env()), "end");
}

TEST(Interpolation, TheNestingLimitAppliesToSkippedFallbacksToo) {
  std::string deep = "${SET:-";
  for (int i = 0; i < 40; ++i) deep += "${X:-";
  deep += std::string(41, '}');
  EXPECT_FALSE(interpolate(deep, fake_env({{"SET", "v"}})).ok());
  EXPECT_EQ(expand("${SET:-${X:-${Y}}} tail", fake_env({{"SET", "v"}})), "v tail");
}

TEST(Interpolation, OutputIsBounded) {
  const std::string big(600 * 1024, 'x');
  auto env = fake_env({{"BIG", big}});
  EXPECT_EQ(expand("${BIG}", env).size(), big.size());
  auto twice = interpolate("${BIG}${BIG}", env);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("longer than 1048576 bytes"), std::string::npos);
  auto tight = interpolate("abc${BIG}", env, InterpolationLimits{32, 100});
  EXPECT_FALSE(tight.ok());
}

TEST(Interpolation, UnclosedFallbacksNameTheOutermostVariable) {
  auto result = interpolate("${OUTER:-${INNER:-x}", fake_env());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("'${OUTER' is never closed"), std::string::npos) << result.error().message;
  EXPECT_FALSE(interpolate("${A:-$${b}", fake_env()).ok());
  EXPECT_EQ(expand("$${a} }x}", fake_env()), "${a} }x}");
}

}  // namespace
}  // namespace agentry::definitions
