#include "core/ids.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>
#include <unordered_set>

namespace agentry::core {
namespace {

bool is_base36(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'); }

TEST(NewRunId, IsFourteenLowercaseBase36Characters) {
  for (int i = 0; i < 100; ++i) {
    const std::string id = new_run_id();
    ASSERT_EQ(id.size(), run_id_length) << id;
    ASSERT_EQ(id.size(), 14u);
    for (char c : id) ASSERT_TRUE(is_base36(c)) << id;
    EXPECT_TRUE(is_valid_run_id(id)) << id;
  }
}

TEST(NewRunId, TenThousandIdsAreUnique) {
  std::unordered_set<std::string> seen;
  for (int i = 0; i < 10'000; ++i) seen.insert(new_run_id());
  EXPECT_EQ(seen.size(), 10'000u);
}

TEST(NewRunId, TenThousandIdsOfOneSecondAreUnique) {
  std::unordered_set<std::string> seen;
  for (int i = 0; i < 10'000; ++i) seen.insert(new_run_id_at(1'767'225'600'000));
  EXPECT_EQ(seen.size(), 10'000u);
}

TEST(NewRunId, StartsWithTheSecondsSinceTheEpochInBase36) {
  constexpr std::int64_t epoch_ms = run_id_epoch_unix_seconds * 1000;
  EXPECT_EQ(new_run_id_at(epoch_ms).substr(0, 6), "000000");
  EXPECT_EQ(new_run_id_at(epoch_ms + 999).substr(0, 6), "000000");
  EXPECT_EQ(new_run_id_at(epoch_ms + 1000).substr(0, 6), "000001");
  EXPECT_EQ(new_run_id_at(epoch_ms + 36'000).substr(0, 6), "000010");
  EXPECT_EQ(new_run_id_at(epoch_ms + 35'999'000).substr(0, 6), "000rrz");  // 35,999 s
}

TEST(NewRunId, SortsByCreationAcrossASecondBoundary) {
  // 2026-01-01T00:00:00Z minus half a second, then the next instants across the boundary.
  constexpr std::int64_t before = 1'767'225'599'500;
  std::vector<std::string> minted;
  for (std::int64_t t = before; t < before + 3'000; t += 250) minted.push_back(new_run_id_at(t));
  for (std::size_t i = 1; i < minted.size(); ++i) {
    const bool later_second = (before + static_cast<std::int64_t>(i) * 250) / 1000 >
                              (before + static_cast<std::int64_t>(i - 1) * 250) / 1000;
    if (later_second) {
      EXPECT_LT(minted[i - 1], minted[i]) << "minted at step " << i;
    }
    EXPECT_EQ(minted[i].size(), run_id_length);
  }
  // The last second's ids all sort after every id of the first.
  EXPECT_LT(*std::max_element(minted.begin(), minted.begin() + 2), *std::min_element(minted.end() - 4, minted.end()));
}

TEST(NewRunId, ClampsTimesOutsideItsRangeAndKeepsItsWidth) {
  const std::string early = new_run_id_at(0);
  const std::string late = new_run_id_at(std::int64_t{4'000'000'000} * 1000);
  EXPECT_EQ(early.substr(0, 6), "000000");
  EXPECT_EQ(late.substr(0, 6), "zzzzzz");
  EXPECT_EQ(early.size(), run_id_length);
  EXPECT_EQ(late.size(), run_id_length);
}

TEST(IsValidRunId, AcceptsIdsOfTheOlderShape) {
  // Ten random characters, as agentry minted before ids began with their time.
  EXPECT_TRUE(is_valid_run_id("k3x9q0mz7a"));
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
