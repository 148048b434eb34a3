#include "cli/listen_url.hpp"

#include "core/ids.hpp"

#include <gtest/gtest.h>

namespace agentry::cli {
namespace {

TEST(ConnectUrlTest, AcceptsTheDaemonsUrl) {
  auto url = parse_connect_url("ws://127.0.0.1:4773/");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_EQ(url->port, 4773);
  auto local = parse_connect_url("ws://localhost:9");
  ASSERT_TRUE(local);
  EXPECT_EQ(local->host, "127.0.0.1");
  auto v6 = parse_connect_url("ws://[::1]:80/");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
}

TEST(ConnectUrlTest, RefusesWhatItCannotDial) {
  for (const char* bad : {"http://127.0.0.1:4773/", "ws://127.0.0.1/", "ws://127.0.0.1:0/", "ws://:80/",
                          "ws://127.0.0.1:4773/api", "wss://127.0.0.1:4773/", "ws://127.0.0.1:99999/"}) {
    auto url = parse_connect_url(bad);
    ASSERT_FALSE(url) << bad;
    EXPECT_NE(url.error().message.find("--connect"), std::string::npos) << url.error().message;
  }
  EXPECT_TRUE(parse_listen_url("ws://127.0.0.1:0/"));  // --listen may pick a free port
}

TEST(ControllerIdTest, CliIdsCarryThePidLikeDaemonIds) {
  auto id = core::new_cli_instance_id(4242, std::nullopt);
  EXPECT_EQ(id.rfind("cli-4242-", 0), 0u) << id;
  EXPECT_EQ(id.size(), std::string("cli-4242-").size() + 6);
  EXPECT_NE(id, core::new_cli_instance_id(4242, std::nullopt));
  auto timed = core::new_cli_instance_id(4242, 77);
  EXPECT_EQ(timed.rfind("cli-4242-", 0), 0u) << timed;
  EXPECT_EQ(timed.substr(timed.size() - 3), "-77") << timed;
}

}  // namespace
}  // namespace agentry::cli
