#include "core/group_id.hpp"

#include "core/ids.hpp"

#include <gtest/gtest.h>

namespace agentry::core {
namespace {

TEST(GroupId, AcceptsAgentrysKeysAndAgentRunnersPrintableText) {
  for (const char* id : {"g", "team:backend", "feature/login-form_2", "group.v1", "release 2.0", "Ünïcode grøup",
                         "a..b", "(weird) #1!"})
    EXPECT_EQ(normalize_group_id(id), std::optional<std::string>(id)) << id;
  EXPECT_EQ(normalize_group_id(std::string(128, 'g')), std::string(128, 'g'));
  // 128 characters of two bytes each are still 128 characters.
  std::string wide;
  for (int i = 0; i < 128; ++i) wide += "é";
  EXPECT_EQ(normalize_group_id(wide), wide);
}

TEST(GroupId, TrimsWhiteSpaceAroundIt) {
  EXPECT_EQ(normalize_group_id("  my group\t"), std::optional<std::string>("my group"));
  EXPECT_EQ(normalize_group_id("pasted\n"), std::optional<std::string>("pasted"));
  EXPECT_EQ(normalize_group_id(" " + std::string(128, 'g') + " "), std::string(128, 'g'));
}

TEST(GroupId, RefusesEmptyTooLongControlCharactersBackslashesAndBadUtf8) {
  EXPECT_FALSE(normalize_group_id(""));
  EXPECT_FALSE(normalize_group_id("   \t"));
  EXPECT_FALSE(normalize_group_id(std::string(129, 'g')));
  std::string wide;
  for (int i = 0; i < 129; ++i) wide += "é";
  EXPECT_FALSE(normalize_group_id(wide));
  EXPECT_FALSE(normalize_group_id("back\\slash"));
  EXPECT_FALSE(normalize_group_id("new\nline"));
  EXPECT_FALSE(normalize_group_id("in\tside"));
  EXPECT_FALSE(normalize_group_id(std::string("nul\0x", 5)));
  EXPECT_FALSE(normalize_group_id("del\x7f"));
  EXPECT_FALSE(normalize_group_id("bad \xff utf8"));
}

TEST(GroupId, RefusesWhatWouldStepOutOfAWorkspaceDirectory) {
  // An environment's workspace may be <hostRoot>/<group id>.
  for (const char* id : {"..", ".", "../up", "a/../b", "a/..", "./a", "/leading", "trailing/", "/"})
    EXPECT_FALSE(normalize_group_id(id)) << id;
  EXPECT_TRUE(normalize_group_id("a..b/c.d/..e"));
}

TEST(GroupId, OtherKeysKeepTheNarrowerRule) {
  EXPECT_TRUE(normalize_group_id("has space"));
  EXPECT_FALSE(is_valid_key("has space"));
}

}  // namespace
}  // namespace agentry::core
