#include "core/web_origin.hpp"

#include <gtest/gtest.h>

namespace agentry::core {
namespace {

TEST(WebOrigin, HostNamesAreParsedWithoutPortAndCase) {
  EXPECT_EQ(host_name_of("127.0.0.1:4773"), "127.0.0.1");
  EXPECT_EQ(host_name_of("LocalHost."), "localhost");
  EXPECT_EQ(host_name_of("[::1]:80"), "::1");
  EXPECT_EQ(host_name_of("evil.example:99999"), "");
  EXPECT_EQ(host_name_of("a b"), "");
  EXPECT_EQ(host_name_of("user@host"), "");
}

TEST(WebOrigin, OriginsAreLowerCaseWithoutTheirDefaultPort) {
  EXPECT_EQ(normalized_origin("HTTP://LocalHost:5173"), "http://localhost:5173");
  EXPECT_EQ(normalized_origin("http://box.lan:80"), "http://box.lan");
  EXPECT_EQ(normalized_origin("https://x.dev:443"), "https://x.dev");
  EXPECT_EQ(normalized_origin("https://x.dev:80"), "https://x.dev:80");
  EXPECT_EQ(normalized_origin("null"), "");
  EXPECT_EQ(normalized_origin("file://"), "");
  EXPECT_EQ(normalized_origin("ftp://x.dev"), "");
  EXPECT_EQ(normalized_origin("http://a/b"), "");
}

}  // namespace
}  // namespace agentry::core
