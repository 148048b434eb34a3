// core::is_json_object agrees with boost::json::parse(text).is_object() on every text
// below: objects, other values, broken grammar, invalid UTF-8, depth, trailing text.

#include "core/json_check.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <string>
#include <vector>

namespace agentry::core {
namespace {

bool parse_says_object(const std::string& text) {
  boost::system::error_code ec;
  auto value = boost::json::parse(text, ec);
  return !ec && value.is_object();
}

std::string nested(int depth) {
  std::string text;
  for (int i = 0; i < depth; ++i) text += i == 0 ? "{\"a\":" : "[";
  text += "1";
  for (int i = depth - 1; i >= 0; --i) text += i == 0 ? "}" : "]";
  return text;
}

TEST(JsonCheckTest, AgreesWithTheParserOnObjectsOtherValuesAndBrokenText) {
  const std::vector<std::string> texts = {
      "{}",
      " \t{\"text\":\"hello\",\"n\":1,\"f\":1.5e3,\"big\":18446744073709551615,\"neg\":-2} \r\n",
      "{\"nested\":{\"list\":[1,\"two\",null,true,false,{\"k\":[]}]}}",
      "{\"escapes\":\"\\\" \\\\ \\n \\u00e9 \\ud83d\\ude00\"}",
      "{\"dup\":1,\"dup\":2}",
      "{\"utf8\":\"caf\xc3\xa9 \xf0\x9f\x98\x80\"}",
      "",
      "   ",
      "[]",
      "[{}]",
      "\"text\"",
      "1",
      "-0.5",
      "true",
      "null",
      "{",
      "}",
      "{\"a\":}",
      "{\"a\":1,}",
      "{\"a\" 1}",
      "{a:1}",
      "{'a':1}",
      "{\"a\":1}{}",
      "{\"a\":1} x",
      "{\"a\":1}\n[]",
      "{\"a\":01}",
      "{\"a\":1e}",
      "{\"a\":NaN}",
      "{\"a\":\"unterminated}",
      "{\"a\":\"tab\tinside\"}",
      "{\"a\":\"\\x\"}",
      "{\"a\":\"\xc3\"}",
      "{\"a\":\"\xff\xfe\"}",
      "{\"a\":\"\xed\xa0\x80\"}",
      "/* comment */ {}",
      "{} // comment",
      std::string("{\"a\":\"nul\0byte\"}", 16),
      nested(32),
      nested(33),
      nested(200),
  };
  for (const auto& text : texts) EXPECT_EQ(is_json_object(text), parse_says_object(text)) << "text: " << text;
}

TEST(JsonCheckTest, SaysYesToObjectsAndNoToTheRest) {
  EXPECT_TRUE(is_json_object("{\"kind\":\"message.delta\",\"text\":\"hi\"}"));
  EXPECT_TRUE(is_json_object(nested(32)));
  EXPECT_FALSE(is_json_object(nested(33)));  // deeper than parse's default limit
  EXPECT_FALSE(is_json_object("[1,2]"));
  EXPECT_FALSE(is_json_object("{\"a\":1} trailing"));
  EXPECT_FALSE(is_json_object("{\"a\":\"\xc3\"}"));  // a cut UTF-8 sequence
  EXPECT_FALSE(is_json_object(""));
}

}  // namespace
}  // namespace agentry::core
