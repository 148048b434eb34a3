#include "definitions/template.hpp"

#include <boost/json/array.hpp>
#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

const boost::json::object context{{"name", "Ada"}, {"count", 3},     {"ratio", 0.5},
                                  {"on", true},    {"none", nullptr}, {"run_id", "r1"}};

std::string render(std::string_view text) {
  auto result = render_template(text, context);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  return result.ok() ? result.value() : std::string("<error>");
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

TEST(Template, UnknownKeysAreNamedWithTheAvailableOnes) {
  auto result = render_template("{{nmae}} and {{other}} and {{nmae}}", context);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, core::ErrorCode::validation);
  const auto& message = result.error().message;
  EXPECT_NE(message.find("unknown template keys 'nmae', 'other'"), std::string::npos) << message;
  EXPECT_NE(message.find("available keys: count, name, none, on, ratio, run_id"), std::string::npos) << message;
  EXPECT_EQ(result.error().details.at("unknownKeys").as_array().size(), 2u);
}

TEST(Template, MalformedPlaceholdersAreErrors) {
  EXPECT_FALSE(render_template("{{name", context).ok());
  EXPECT_FALSE(render_template("{{}}", context).ok());
  EXPECT_FALSE(render_template("{{ two words }}", context).ok());
}

TEST(Template, TextWithoutPlaceholdersIsUnchanged) {
  EXPECT_EQ(render(""), "");
  EXPECT_EQ(render("plain text\nwith lines"), "plain text\nwith lines");
}

}  // namespace
}  // namespace agentry::definitions
