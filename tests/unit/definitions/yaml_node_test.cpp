#include "definitions/yaml_node.hpp"

#include "core/utf8.hpp"

#include "test_support.hpp"

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::has_problem;

TEST(YamlNode, KeepsScalarTextAndQuoting) {
  Diagnostics diag("f.yaml");
  auto node = parse_yaml("a: 4\nb: '4'\nc: hello\n", 1, fake_env(), diag);
  ASSERT_TRUE(node && node->is_map());
  EXPECT_EQ(node->find("a")->text, "4");
  EXPECT_TRUE(node->find("a")->plain);
  EXPECT_FALSE(node->find("b")->plain);
  EXPECT_EQ(node->find("c")->line, 3);
  EXPECT_EQ(node->find("missing"), nullptr);
}

TEST(YamlNode, ConvertsToTypedJson) {
  Diagnostics diag("f.yaml");
  auto node = parse_yaml(
      "int: 42\nneg: -7\nfloat: 2.5\nbool: true\nnull1: ~\nnull2:\nquoted: \"42\"\n"
      "text: yes\nlist: [1, a]\nmap: {k: v}\n",
      1, fake_env(), diag);
  ASSERT_TRUE(node);
  EXPECT_EQ(boost::json::serialize(to_json(*node)),
            R"({"int":42,"neg":-7,"float":2.5E0,"bool":true,"null1":null,"null2":null,)"
            R"("quoted":"42","text":"yes","list":[1,"a"],"map":{"k":"v"}})");
}

TEST(YamlNode, InterpolatesScalarValuesNotKeys) {
  Diagnostics diag("f.yaml");
  auto node = parse_yaml("${KEY}: ${VALUE}\nlist: [\"${VALUE}\"]\n", 1, fake_env({{"VALUE", "v"}, {"KEY", "k"}}), diag);
  ASSERT_TRUE(node);
  EXPECT_FALSE(diag.has_errors()) << testing::dump(diag.errors());
  EXPECT_EQ(node->entries[0].first, "${KEY}");
  EXPECT_EQ(node->entries[0].second.text, "v");
  EXPECT_EQ(node->find("list")->items[0].text, "v");
}

TEST(YamlNode, InterpolatedValuesCannotBreakQuoting) {
  Diagnostics diag("f.yaml");
  auto node = parse_yaml("a: \"${NASTY}\"\nb: ${NASTY}\n", 1, fake_env({{"NASTY", "x\"\nc: injected"}}), diag);
  ASSERT_TRUE(node);
  EXPECT_FALSE(diag.has_errors());
  EXPECT_EQ(node->entries.size(), 2u);
  EXPECT_EQ(node->find("a")->text, "x\"\nc: injected");
  EXPECT_EQ(node->find("c"), nullptr);
}

TEST(YamlNode, UnsetVariableIsReportedWithItsField) {
  Diagnostics diag("/cfg/agents/a/agent.md");
  auto node = parse_yaml("backendConfig:\n  codex:\n    url: ${CODEX_URL}\nlist: [ok, \"${NOPE}\"]\n", 2,
                         fake_env(), diag);
  ASSERT_TRUE(node);
  EXPECT_TRUE(has_problem(diag.errors(), "agent.md", "backendConfig.codex.url", "'CODEX_URL' is not set"));
  EXPECT_TRUE(has_problem(diag.errors(), "agent.md", "list[1]", "${NOPE:-default}"));
}

TEST(YamlNode, DuplicateKeysAreErrors) {
  Diagnostics diag("f.yaml");
  auto node = parse_yaml("a: 1\nb: 2\na: 3\n", 1, fake_env(), diag);
  ASSERT_TRUE(node);
  EXPECT_TRUE(has_problem(diag.errors(), "f.yaml", "a", "more than once (line 3)"));
}

TEST(YamlNode, SyntaxErrorsNameTheFileLine) {
  Diagnostics diag("f.md");
  auto node = parse_yaml("a: [1,\nb: 2\n", 2, fake_env(), diag);
  EXPECT_FALSE(node);
  ASSERT_EQ(diag.errors().size(), 1u);
  EXPECT_NE(diag.errors()[0].message.find("invalid YAML at line"), std::string::npos);
}

TEST(YamlNode, AliasExpansionIsBounded) {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 8; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev + ", " + prev + ", " + prev +
            ", " + prev + ", " + prev + ", " + prev + ", " + prev + ", " + prev + ", " + prev + ", " + prev + "]\n";
  }
  Diagnostics diag("bomb.yaml");
  parse_yaml(text, 1, fake_env(), diag);
  ASSERT_EQ(diag.errors().size(), 1u);
  EXPECT_NE(diag.errors()[0].message.find("more than 100000 values"), std::string::npos);
}

std::size_t count_nodes(const YamlNode& node) {
  std::size_t n = 1;
  for (const auto& item : node.items) n += count_nodes(item);
  for (const auto& [key, value] : node.entries) n += count_nodes(value);
  return n;
}

TEST(YamlNode, ConversionStopsAtTheFirstBudgetItRunsOutOf) {
  // A million copies of a 1,000-byte value: the text budget (4 MiB) runs out after about
  // 4,200 of them, and nothing after that is read (not the other 95,800 values the node
  // budget would still allow, each copied and checked before being dropped).
  std::string text = "a: &a \"" + std::string(1000, 'w') + "\"\nb0: &b0 [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n";
  for (int level = 1; level < 6; ++level) {
    const std::string prev = "*b" + std::to_string(level - 1);
    text += "b" + std::to_string(level) + ": &b" + std::to_string(level) + " [";
    for (int k = 0; k < 10; ++k) text += (k ? ", " : "") + prev;
    text += "]\n";
  }
  Diagnostics diag("wide.yaml");
  auto node = parse_yaml(text, 1, fake_env(), diag);
  ASSERT_EQ(diag.errors().size(), 1u);
  EXPECT_NE(diag.errors()[0].message.find("add up to more than"), std::string::npos) << diag.errors()[0].message;
  ASSERT_TRUE(node);
  EXPECT_LT(count_nodes(*node), 5'000u);
}

TEST(YamlNode, ScalarReadings) {
  EXPECT_EQ(yaml_bool("True"), true);
  EXPECT_EQ(yaml_bool("no"), std::nullopt);
  EXPECT_EQ(yaml_int("0x1F"), 31);
  EXPECT_EQ(yaml_int("-12"), -12);
  EXPECT_EQ(yaml_int("+3"), 3);
  EXPECT_EQ(yaml_int("1.0"), std::nullopt);
  EXPECT_EQ(yaml_int("99999999999999999999"), std::nullopt);
  EXPECT_EQ(yaml_float("1e3"), 1000.0);
  EXPECT_EQ(yaml_float("inf"), std::nullopt);
  EXPECT_EQ(yaml_float("abc"), std::nullopt);
}

// Inputs the fuzz targets found (tests/fuzz): each crashed the daemon or left a row that
// could not be read back.
TEST(YamlNode, AnAliasThatHoldsItselfIsAnErrorNotAStackOverflow) {
  Diagnostics diag("agent.md");
  auto node = parse_yaml("a: &a [*a]\n", 1, fake_env(), diag);
  ASSERT_TRUE(diag.has_errors());
  EXPECT_NE(diag.errors().front().message.find("nested more than 24 deep"), std::string::npos)
      << diag.errors().front().message;
}

TEST(YamlNode, TextYamlCppDecodesIntoInvalidUtf8IsRepaired) {
  // NUL bytes near the start make yaml-cpp guess UTF-32 and produce bytes that are not UTF-8.
  const std::string text("s\0\0\0/\nt: !custondConfig:\n  mock: {s\"teps:: 2\n.\n", 47);
  Diagnostics diag("agent.md");
  auto node = parse_yaml(text, 1, fake_env(), diag);
  if (node) {
    EXPECT_TRUE(core::is_valid_utf8(boost::json::serialize(to_json(*node))));
  }
}

}  // namespace
}  // namespace agentry::definitions
