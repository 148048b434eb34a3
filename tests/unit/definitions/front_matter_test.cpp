#include "definitions/front_matter.hpp"

#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

TEST(FrontMatter, SplitsYamlFromBody) {
  auto split = split_front_matter("---\nschemaVersion: 1\nbackend: passive\n---\n\n# Role\n\nPlan things.\n\n");
  ASSERT_TRUE(split.ok()) << split.error().message;
  EXPECT_EQ(split->yaml, "schemaVersion: 1\nbackend: passive\n");
  EXPECT_EQ(split->body, "# Role\n\nPlan things.");
  EXPECT_EQ(split->yaml_first_line, 2);
}

TEST(FrontMatter, AcceptsDotsAsClosingLine) {
  auto split = split_front_matter("---\na: 1\n...\nbody");
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->yaml, "a: 1\n");
  EXPECT_EQ(split->body, "body");
}

TEST(FrontMatter, ToleratesCrlfTrailingBlanksAndBom) {
  auto split = split_front_matter("\xEF\xBB\xBF---  \r\na: 1\r\n--- \r\nbody\r\n");
  ASSERT_TRUE(split.ok()) << split.error().message;
  EXPECT_EQ(split->yaml, "a: 1\r\n");
  EXPECT_EQ(split->body, "body");
}

TEST(FrontMatter, BodyMayBeEmpty) {
  auto split = split_front_matter("---\na: 1\n---");
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->body, "");
}

TEST(FrontMatter, KeepsIndentationOfFirstBodyLine) {
  auto split = split_front_matter("---\na: 1\n---\n\n    code block\n");
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->body, "    code block");
}

TEST(FrontMatter, OnlyTheFirstClosingLineEndsTheBlock) {
  auto split = split_front_matter("---\na: 1\n---\nbefore\n---\nafter\n");
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->body, "before\n---\nafter");
}

TEST(FrontMatter, MissingOpeningLineIsAnError) {
  auto split = split_front_matter("schemaVersion: 1\n---\nbody");
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.error().code, core::ErrorCode::validation);
  EXPECT_NE(split.error().message.find("must start with a '---'"), std::string::npos);
}

TEST(FrontMatter, UnclosedBlockIsAnError) {
  auto split = split_front_matter("---\nschemaVersion: 1\nbody text\n");
  ASSERT_FALSE(split.ok());
  EXPECT_NE(split.error().message.find("never closed"), std::string::npos);
}

TEST(FrontMatter, EmptyFileIsAnError) {
  EXPECT_FALSE(split_front_matter("").ok());
  EXPECT_FALSE(split_front_matter("---").ok());
}

}  // namespace
}  // namespace agentry::definitions
