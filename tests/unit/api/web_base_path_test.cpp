#include "api/web_base_path.hpp"

#include <gtest/gtest.h>

namespace agentry::api {
namespace {

TEST(WebBasePath, NormalizesTrailingSlashesAndTheRoot) {
  EXPECT_EQ(*normalize_web_base_path(""), "");
  EXPECT_EQ(*normalize_web_base_path("/"), "");
  EXPECT_EQ(*normalize_web_base_path("/agentry/"), "/agentry");
  EXPECT_EQ(*normalize_web_base_path("/tools/agentry-1.0"), "/tools/agentry-1.0");
}

TEST(WebBasePath, RefusesWhatCouldBreakOutOfTheBaseHref) {
  for (const char* bad : {"agentry", "/a//b", "/a/../b", "/\"><script>", "/a b", "/a%2fb", "/a?x"}) {
    auto r = normalize_web_base_path(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("AGENTRY_WEB_BASE_PATH"), std::string::npos);
  }
}

TEST(WebBasePath, StripsOnlyAWholeLeadingSegment) {
  auto strip = [](std::string base, std::string path) {
    strip_web_base_path(base, path);
    return path;
  };
  EXPECT_EQ(strip("/agentry", "/agentry/api/runs"), "/api/runs");
  EXPECT_EQ(strip("/agentry", "/agentry"), "/");
  EXPECT_EQ(strip("/agentry", "/agentryx/api"), "/agentryx/api");
  EXPECT_EQ(strip("/agentry", "/api/runs"), "/api/runs");
  EXPECT_EQ(strip("", "/api/runs"), "/api/runs");
}

}  // namespace
}  // namespace agentry::api
