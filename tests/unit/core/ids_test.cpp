#include "core/ids.hpp"

#include <gtest/gtest.h>

#include <string>
#include <unordered_set>

namespace agentry::core {
namespace {

bool is_base36(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'); }

TEST(NewRunId, IsTenLowercaseBase36Characters) {
  for (int i = 0; i < 100; ++i) {
    const std::string id = new_run_id();
    ASSERT_EQ(id.size(), run_id_length) << id;
    ASSERT_EQ(id.size(), 10u);
    for (char c : id) ASSERT_TRUE(is_base36(c)) << id;
    EXPECT_TRUE(is_valid_run_id(id)) << id;
  }
}

TEST(NewRunId, TenThousandIdsAreUnique) {
  std::unordered_set<std::string> seen;
  for (int i = 0; i < 10'000; ++i) seen.insert(new_run_id());
  EXPECT_EQ(seen.size(), 10'000u);
}

TEST(NewPrefixedId, StartsWithThePrefixAndAnUnderscore) {
  const std::string a = new_prefixed_id("qm");
  const std::string b = new_prefixed_id("qm");
  ASSERT_GT(a.size(), 3u);
  EXPECT_EQ(a.substr(0, 3), "qm_");
  for (char c : a.substr(3)) EXPECT_TRUE(is_base36(c)) << a;
  EXPECT_NE(a, b);
  EXPECT_TRUE(is_valid_run_id(a));
}

TEST(NewDaemonInstanceId, NamesThePid) {
  const std::string id = new_daemon_instance_id(4242, std::nullopt);
  const std::string prefix = "daemon-4242-";
  ASSERT_EQ(id.substr(0, prefix.size()), prefix) << id;
  EXPECT_EQ(id.size(), prefix.size() + 6) << id;
  for (char c : id.substr(prefix.size())) EXPECT_TRUE(is_base36(c)) << id;
  EXPECT_NE(id, new_daemon_instance_id(4242, std::nullopt));
}

TEST(NewDaemonInstanceId, EndsWithTheStartTimeWhenKnown) {
  const std::string id = new_daemon_instance_id(4242, 987654321);
  const std::string prefix = "daemon-4242-";
  ASSERT_EQ(id.substr(0, prefix.size()), prefix) << id;
  ASSERT_EQ(id.size(), prefix.size() + 6 + std::string("-987654321").size()) << id;
  for (char c : id.substr(prefix.size(), 6)) EXPECT_TRUE(is_base36(c)) << id;
  EXPECT_EQ(id.substr(prefix.size() + 6), "-987654321");
}

TEST(IsValidRunId, AcceptsUrlSafeIdsUpTo64Characters) {
  EXPECT_TRUE(is_valid_run_id("a"));
  EXPECT_TRUE(is_valid_run_id("abc123XYZ"));
  EXPECT_TRUE(is_valid_run_id("with-dash_and_underscore"));
  EXPECT_TRUE(is_valid_run_id(std::string(64, 'x')));
}

TEST(IsValidRunId, RejectsEmptyTooLongAndUnsafeCharacters) {
  EXPECT_FALSE(is_valid_run_id(""));
  EXPECT_FALSE(is_valid_run_id(std::string(65, 'x')));
  EXPECT_FALSE(is_valid_run_id("has space"));
  EXPECT_FALSE(is_valid_run_id("a/b"));
  EXPECT_FALSE(is_valid_run_id("/abc"));
  EXPECT_FALSE(is_valid_run_id(".."));
  EXPECT_FALSE(is_valid_run_id("a.b"));
  EXPECT_FALSE(is_valid_run_id("a:b"));
  EXPECT_FALSE(is_valid_run_id("tab\there"));
  EXPECT_FALSE(is_valid_run_id("new\nline"));
  EXPECT_FALSE(is_valid_run_id("caf\xc3\xa9"));
  EXPECT_FALSE(is_valid_run_id(std::string("nul\0x", 5)));
}

TEST(IsValidKey, AcceptsKeysWithDotsColonsAndInnerSlashes) {
  EXPECT_TRUE(is_valid_key("k"));
  EXPECT_TRUE(is_valid_key("review"));
  EXPECT_TRUE(is_valid_key("group.v1"));
  EXPECT_TRUE(is_valid_key("team:backend"));
  EXPECT_TRUE(is_valid_key("feature/login-form_2"));
  EXPECT_TRUE(is_valid_key(std::string(128, 'k')));
}

TEST(IsValidKey, RejectsEmptyTooLongTraversalSlashesAtEitherEndAndSpaces) {
  EXPECT_FALSE(is_valid_key(""));
  EXPECT_FALSE(is_valid_key(std::string(129, 'k')));
  EXPECT_FALSE(is_valid_key(".."));
  EXPECT_FALSE(is_valid_key("a/../b"));
  EXPECT_FALSE(is_valid_key("a..b"));
  EXPECT_FALSE(is_valid_key("/leading"));
  EXPECT_FALSE(is_valid_key("trailing/"));
  EXPECT_FALSE(is_valid_key("/"));
  EXPECT_FALSE(is_valid_key("has space"));
  EXPECT_FALSE(is_valid_key(" leading"));
  EXPECT_FALSE(is_valid_key("back\\slash"));
  EXPECT_FALSE(is_valid_key("semi;colon"));
  EXPECT_FALSE(is_valid_key("new\nline"));
  EXPECT_FALSE(is_valid_key(std::string("nul\0x", 5)));
}

}  // namespace
}  // namespace agentry::core
