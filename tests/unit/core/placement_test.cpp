#include "core/placement.hpp"

#include "core/daemon_member.hpp"
#include "core/settings.hpp"

#include <gtest/gtest.h>

#include <map>

namespace agentry::core {
namespace {

MemberOffer offer(std::string name, std::vector<std::string> labels, std::vector<std::string> roots = {},
                  std::int64_t capacity = 0, std::int64_t live = 0) {
  return {std::move(name), std::move(labels), std::move(roots), capacity, live};
}

TEST(Placement, AMemberFitsWithEveryLabelARootHoldingTheDirectoryAndRoom) {
  const PlacementNeeds needs{{"gpu", "region=eu"}, "/srv/work/app"};
  EXPECT_EQ(misfit(offer("a", {"region=eu", "gpu", "big"}, {"/srv/work"}, 2, 1), needs), std::nullopt);
  EXPECT_EQ(misfit(offer("a", {"region=eu"}), needs), "it lacks the label gpu");
  EXPECT_EQ(misfit(offer("a", {}), needs), "it lacks the labels gpu, region=eu");
  EXPECT_EQ(misfit(offer("a", {"gpu", "region=eu"}, {"/home", "/srv/other"}), needs),
            "its workspace roots (/home, /srv/other) do not hold /srv/work/app");
  EXPECT_EQ(misfit(offer("a", {"gpu", "region=eu"}, {}, 2, 2), needs), "it is at capacity (2 of 2 live runs)");
}

TEST(Placement, RootsHoldTheirOwnTreeOnlyComparedByWholeComponents) {
  EXPECT_TRUE(within_roots({}, "/anything"));
  EXPECT_TRUE(within_roots({"/srv/work"}, "/srv/work"));
  EXPECT_TRUE(within_roots({"/srv/work"}, "/srv/work/a/b"));
  EXPECT_FALSE(within_roots({"/srv/work"}, "/srv/work2"));
  EXPECT_FALSE(within_roots({"/srv/work"}, "/srv"));
  EXPECT_TRUE(within_roots({"/"}, "/srv"));
}

TEST(Placement, WhyNobodyGivesTheHardReasonBeforeCapacity) {
  const PlacementNeeds gpu{{"gpu"}, "/w/x"};
  EXPECT_EQ(why_nobody({}, gpu), "no member is serving");
  EXPECT_EQ(why_nobody({offer("a", {"cpu"})}, gpu), "no member has the label gpu");
  EXPECT_EQ(why_nobody({offer("a", {"gpu"}, {"/v"}), offer("b", {}, {"/w"})}, gpu),
            "no member with the label gpu has a workspace root holding /w/x");
  EXPECT_EQ(why_nobody({offer("a", {}, {"/v"})}, PlacementNeeds{{}, "/w/x"}),
            "no member has a workspace root holding /w/x");
  EXPECT_EQ(why_nobody({offer("a", {"gpu"}, {}, 1, 1), offer("b", {})}, gpu),
            "the one member that can take it (a) is at capacity");
  EXPECT_EQ(why_nobody({offer("a", {"gpu"}, {}, 1, 1), offer("b", {"gpu"}, {"/w"}, 3, 3)}, gpu),
            "every member that can take it is at capacity");
  EXPECT_EQ(why_nobody({offer("a", {"gpu"}, {}, 1, 1), offer("b", {"gpu"}, {"/w"}, 3, 2)}, gpu),
            "to be claimed by b");
}

TEST(Placement, LabelsAreShortWordsWithoutCommas) {
  EXPECT_TRUE(is_valid_label("gpu"));
  EXPECT_TRUE(is_valid_label("region=eu-west/1:a_b.c"));
  EXPECT_FALSE(is_valid_label(""));
  EXPECT_FALSE(is_valid_label("a,b"));
  EXPECT_FALSE(is_valid_label("has space"));
  EXPECT_FALSE(is_valid_label(std::string(129, 'a')));
}

TEST(Placement, WorkspaceRootsComeFromTheEnvironmentAbsoluteAndNormal) {
  auto lookup = [](std::map<std::string, std::string> values) -> SettingLookup {
    return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
      auto it = values.find(std::string(name));
      return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  };
  auto s = parse_settings(lookup({{"AGENTRY_WORKSPACE_ROOTS", "/srv/work/:/home/ci/./repos::"}}));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->workspace_roots, (std::vector<std::string>{"/srv/work", "/home/ci/repos"}));
  auto bad = parse_settings(lookup({{"AGENTRY_WORKSPACE_ROOTS", "/srv:relative/dir"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("AGENTRY_WORKSPACE_ROOTS"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("'relative/dir' is not one"), std::string::npos) << bad.error().message;
  EXPECT_EQ(split_roots(join_roots({"/a", "/b c"})), (std::vector<std::string>{"/a", "/b c"}));
}

}  // namespace
}  // namespace agentry::core
