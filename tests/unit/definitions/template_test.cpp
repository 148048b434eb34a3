#include "definitions/template.hpp"

#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

const boost::json::object context{{"name", "Ada"}, {"count", 3},     {"ratio", 0.5},
                                  {"on", true},    {"none", nullptr}, {"run_id", "r1"}};

std::string render(std::string_view text) {
  auto result = render_template(text, context);
  EXPECT_TRUE(result.unknown_keys.empty()) << result.unknown_keys.front();
  return result.text;
}

TEST(Template, ReplacesKeysWithOrWithoutSpaces) {
  EXPECT_EQ(render("Hi {{name}}, {{ name }} and {{\tname\t}}"), "Hi Ada, Ada and Ada");
}

TEST(Template, FormatsValuesAsText) {
  EXPECT_EQ(render("{{count}} {{ratio}} {{on}} [{{none}}] {{run_id}}"), "3 0.5 true [] r1");
}

TEST(Template, LeavesOtherBracesAlone) {
  EXPECT_EQ(render("{ single } {name} }} done"), "{ single } {name} }} done");
}

TEST(Template, BackslashEscapesOpeningBraces) {
  EXPECT_EQ(render("\\{{name}} is {{name}}"), "{{name}} is Ada");
}

TEST(Template, UnknownKeysAreLeftAsWrittenAndReported) {
  auto result = render_template("{{nmae}} and {{ other }} and {{nmae}} for {{name}}", context);
  EXPECT_EQ(result.text, "{{nmae}} and {{ other }} and {{nmae}} for Ada");
  EXPECT_EQ(result.unknown_keys, (std::vector<std::string>{"nmae", "other"}));
  // What a CI snippet in a body looks like: left alone, but still reported.
  auto ci = render_template("token: ${{ secrets.TOKEN }}", context);
  EXPECT_EQ(ci.text, "token: ${{ secrets.TOKEN }}");
  EXPECT_EQ(ci.unknown_keys, std::vector<std::string>{"secrets.TOKEN"});
}

TEST(Template, WhatIsNotAPlaceholderIsPlainText) {
  EXPECT_EQ(render("{{name"), "{{name");
  EXPECT_EQ(render("{{}} {{ }}"), "{{}} {{ }}");
  EXPECT_EQ(render("{{ two words }}"), "{{ two words }}");
  EXPECT_EQ(render("{{#if x}}"), "{{#if x}}");
  // A broken "{{" does not swallow a placeholder after it.
  EXPECT_EQ(render("{{name and {{name}}"), "{{name and Ada");
  EXPECT_EQ(render("{{{name}}}"), "{Ada}");
}

TEST(Template, KeysAreListedOnce) {
  EXPECT_EQ(template_keys("{{a}} {{ b.c }} \\{{d}} {{a}} {{ not one }} {{e"),
            (std::vector<std::string>{"a", "b.c"}));
}

TEST(Template, DescribesUnknownKeysWithTheKnownOnes) {
  const auto text = describe_unknown_keys({"nmae", "x"}, {"name", "cwd", "name"});
  EXPECT_EQ(text, "unknown template keys 'nmae', 'x' left as written (known keys: cwd, name; "
                  "write \\{{ for literal braces)");
}

TEST(Template, LongInputIsLinear) {
  // Many "{{" without a closing: each is looked at once.
  const std::string text = std::string(200000, '{') + "name" + std::string(100000, 'x');
  EXPECT_EQ(render_template(text, context).text, text);
}

TEST(Template, TextWithoutPlaceholdersIsUnchanged) {
  EXPECT_EQ(render(""), "");
  EXPECT_EQ(render("plain text\nwith lines"), "plain text\nwith lines");
}

}  // namespace
}  // namespace agentry::definitions
