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

TEST(ConnectUrlTest, AcceptsTheDaemonsUnixSocket) {
  auto url = parse_connect_url("unix:///run/agentry/agentry.sock");
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_TRUE(url->is_unix());
  EXPECT_EQ(url->socket_path, "/run/agentry/agentry.sock");
  auto tcp = parse_connect_url("ws://127.0.0.1:4773/");
  ASSERT_TRUE(tcp);
  EXPECT_FALSE(tcp->is_unix());
  // The longest path a socket address holds (107 bytes on Linux) still connects.
  const std::string longest = "/" + std::string(106, 's');
  auto edge = parse_connect_url("unix://" + longest);
  ASSERT_TRUE(edge) << edge.error().message;
  EXPECT_EQ(edge->socket_path, longest);
}

TEST(ConnectUrlTest, RefusesAUnixSocketItCannotDialSayingWhy) {
  auto relative = parse_connect_url("unix://agentry.sock");
  ASSERT_FALSE(relative);
  EXPECT_NE(relative.error().message.find("must be absolute"), std::string::npos) << relative.error().message;
  auto dotted = parse_connect_url("unix://./run/agentry.sock");
  ASSERT_FALSE(dotted);
  EXPECT_NE(dotted.error().message.find("must be absolute"), std::string::npos) << dotted.error().message;
  auto empty = parse_connect_url("unix://");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("socket path is missing"), std::string::npos) << empty.error().message;
  auto too_long = parse_connect_url("unix:///" + std::string(107, 's'));
  ASSERT_FALSE(too_long);
  EXPECT_NE(too_long.error().message.find("108 bytes long"), std::string::npos) << too_long.error().message;
  EXPECT_NE(too_long.error().message.find("at most 107"), std::string::npos) << too_long.error().message;
  for (const char* bad : {"unix:/run/agentry.sock", "unix:run/agentry.sock"}) {
    auto url = parse_connect_url(bad);
    ASSERT_FALSE(url) << bad;
    EXPECT_NE(url.error().message.find("ws:// or unix://"), std::string::npos) << url.error().message;
  }
  // The daemon's --listen is a TCP URL alone; its socket is --socket.
  EXPECT_FALSE(parse_listen_url("unix:///run/agentry/agentry.sock"));
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
