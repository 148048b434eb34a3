// The browser plugin through its C ABI against the real Chromium and a loopback site.
#include "browser_fixture.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <boost/json.hpp>

namespace agentry::test {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;

json::object step(json::object o) { return o; }

class BrowserPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "/usr/bin/chromium is not installed (apt-get install chromium)";
    ASSERT_NE(browser_factory(), nullptr);
  }
};

TEST_F(BrowserPlugin, FillsTheFormReadsTheResultAndSavesAScreenshot) {
  BrowserSite site;
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  json::array steps{step({{"action", "navigate"}, {"url", site.url("/")}}),
                    step({{"action", "read"}}),
                    step({{"action", "type"}, {"selector", "#q"}, {"text", "hello browser"}}),
                    step({{"action", "click"}, {"selector", "#go"}}),
                    step({{"action", "waitFor"}, {"text", "You sent"}}),
                    step({{"action", "read"}}),
                    step({{"action", "screenshot"}, {"name", "result"}}),
                    step({{"action", "back"}}),
                    step({{"action", "finish"}, {"summary", "all done"}})};
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(in.start({{"steps", steps}}, profile), AGENTRY_OK);
  const json::object fin = in.wait_finished();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  std::cerr << "whole script took " << ms << " ms\n";
  EXPECT_EQ(fin.at("outcome"), "success") << json::serialize(fin);
  const std::string text = in.messages();
  EXPECT_NE(text.find("You sent: hello browser"), std::string::npos) << text;
  EXPECT_NE(text.find("link \"Other page\""), std::string::npos) << text;
  EXPECT_NE(text.find("all done"), std::string::npos);
  const fs::path png = in.workspace_.path() / "browser-artifacts" / "result.png";
  ASSERT_TRUE(fs::exists(png));
  const std::string bytes = read_file(png);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(live_processes_naming(profile), 0);
  int started = 0, completed = 0;
  for (const auto& ev : in.host_.events()) {
    started += ev.type == AGENTRY_EVENT_TOOL_STARTED;
    completed += ev.type == AGENTRY_EVENT_TOOL_COMPLETED;
  }
  EXPECT_EQ(started, 8);
  EXPECT_EQ(completed, 8);
}

TEST_F(BrowserPlugin, ClicksByRefAndDownloadsIntoTheWorkspace) {
  BrowserSite site;
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  json::array steps{step({{"action", "navigate"}, {"url", site.url("/")}}), step({{"action", "read"}}),
                    step({{"action", "download"}, {"selector", "#file"}}),
                    step({{"action", "click"}, {"ref", "e3"}}), step({{"action", "read"}})};
  ASSERT_EQ(in.start({{"steps", steps}}, profile), AGENTRY_OK);
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "success") << json::serialize(fin);
  const fs::path file = in.workspace_.path() / "browser-artifacts" / "report.txt";
  ASSERT_TRUE(fs::exists(file));
  EXPECT_EQ(read_file(file), "downloaded content\n");
  EXPECT_NE(in.messages().find("The other page"), std::string::npos) << in.messages();
}

TEST_F(BrowserPlugin, ACookieSurvivesIntoTheNextAttempt) {
  BrowserSite site;
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  ASSERT_EQ(in.start({{"steps", json::array{step({{"action", "navigate"}, {"url", site.url("/set-cookie")}})}}}, profile),
            AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "success");
  ASSERT_EQ(in.start({{"steps", json::array{step({{"action", "navigate"}, {"url", site.url("/show-cookie")}}),
                                            step({{"action", "read"}})}}},
                     profile, true),
            AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "success");
  EXPECT_NE(in.messages().find("cookie: [flavour=ginger]"), std::string::npos) << in.messages();
}

TEST_F(BrowserPlugin, InterruptLeavesNoChromium) {
  BrowserSite site;
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  json::array steps{step({{"action", "navigate"}, {"url", site.url("/")}}),
                    step({{"action", "waitFor"}, {"text", "never there"}, {"timeoutMs", 60000}})};
  ASSERT_EQ(in.start({{"steps", steps}}, profile), AGENTRY_OK);
  ASSERT_TRUE(in.host_.wait_until(
      [](const auto& events) {
        int n = 0;
        for (const auto& ev : events) n += ev.type == AGENTRY_EVENT_TOOL_STARTED;
        return n >= 2;
      },
      std::chrono::seconds(60)));
  EXPECT_GT(live_processes_naming(profile), 0);
  in.backend()->interrupt(in.backend(), "stop");
  const json::object fin = in.wait_finished(std::chrono::seconds(15));
  EXPECT_EQ(fin.at("outcome"), "interrupted") << json::serialize(fin);
  EXPECT_EQ(live_processes_naming(profile), 0);
}

TEST_F(BrowserPlugin, AMissingBinaryEndsWithAClearReason) {
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  ASSERT_EQ(in.start({{"steps", json::array{step({{"action", "read"}})}}}, profile, false,
                     {"AGENTRY_CHROMIUM=/nonexistent"}),
            AGENTRY_OK);
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "error");
  const std::string message(fin.at("message").as_string());
  EXPECT_NE(message.find("/nonexistent"), std::string::npos) << message;
  EXPECT_NE(message.find("apt-get install chromium"), std::string::npos) << message;
}

TEST_F(BrowserPlugin, AFailingStepNamesTheStep) {
  BrowserSite site;
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  json::array steps{step({{"action", "navigate"}, {"url", site.url("/")}}),
                    step({{"action", "click"}, {"selector", "#nope"}})};
  ASSERT_EQ(in.start({{"steps", steps}}, profile), AGENTRY_OK);
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "error");
  const std::string message(fin.at("message").as_string());
  EXPECT_NE(message.find("step 2 (click #nope)"), std::string::npos) << message;
  EXPECT_EQ(live_processes_naming(profile), 0);
}

// A host of ABI 1.2 or later knows the live view event (type 15): frames flow.
TEST_F(BrowserPlugin, LiveViewSendsFramesToANewerHost) {
  BrowserSite site;
  Instance in;
  const_cast<agentry_host_t*>(in.host_.table())->abi_version.minor = 2;  // test host: claim ABI 1.2
  const std::string profile = (in.profile_.path() / "p").string();
  json::array steps{step({{"action", "navigate"}, {"url", site.url("/")}}),
                    step({{"action", "type"}, {"selector", "#q"}, {"text", "frames"}}),
                    step({{"action", "waitFor"}, {"text", "never"}, {"timeoutMs", 1500}})};
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(in.start({{"steps", steps}, {"liveView", true}}, profile), AGENTRY_OK);
  ASSERT_TRUE(in.host_.wait_until(
      [](const auto& events) {
        for (const auto& ev : events)
          if (ev.type == AGENTRY_EVENT_TOOL_COMPLETED) return true;
        return false;
      },
      std::chrono::seconds(60)));
  std::cerr << "start to first page loaded: "
            << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count()
            << " ms\n";
  const json::object fin = in.wait_finished();
  EXPECT_EQ(fin.at("outcome"), "error");  // the waitFor times out
  int frames = 0;
  for (const auto& ev : in.host_.events())
    if (ev.type == 15) {
      ++frames;
      EXPECT_EQ(ev.payload.at("mime"), "image/jpeg");
      EXPECT_TRUE(ev.flags & AGENTRY_EVENT_FLAG_EPHEMERAL);
      EXPECT_GT(ev.payload.at("width").as_int64(), 0);
      EXPECT_FALSE(ev.payload.at("data").as_string().empty());
    }
  EXPECT_GT(frames, 0);
  EXPECT_LE(frames, 20);  // at most ~4 per second
}

// Throttled frames are held, not dropped: the page as the attempt left it is the last
// frame, even when two pages are drawn within the 250 ms between frames.
TEST_F(BrowserPlugin, TheLastFrameShowsWhereTheAttemptEnded) {
  BrowserSite site;
  Instance in;
  const std::string profile = (in.profile_.path() / "p").string();
  json::array steps{step({{"action", "navigate"}, {"url", site.url("/")}}),
                    step({{"action", "navigate"}, {"url", site.url("/other")}}),
                    step({{"action", "finish"}, {"summary", "two pages"}})};
  ASSERT_EQ(in.start({{"steps", steps}}, profile), AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "success");
  std::string last_url;
  for (const auto& ev : in.host_.events())
    if (ev.type == AGENTRY_EVENT_BROWSER_FRAME) last_url = std::string(ev.payload.at("url").as_string());
  EXPECT_EQ(last_url, site.url("/other"));
}

TEST_F(BrowserPlugin, LiveViewSaysUnavailableWhenChromiumCannotStart) {
  Instance in;
  const_cast<agentry_host_t*>(in.host_.table())->abi_version.minor = 2;
  const std::string profile = (in.profile_.path() / "p").string();
  ASSERT_EQ(in.start({{"steps", json::array{step({{"action", "read"}})}}, {"liveView", true}, {"chromium", "/nonexistent"}},
                     profile),
            AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "error");
  int unavailable = 0;
  for (const auto& ev : in.host_.events())
    if (ev.type == 15 && ev.payload.at("status") == "unavailable") ++unavailable;
  EXPECT_EQ(unavailable, 1);
}

// A 1.1 host does not know type 15: it gets no frame even with the live view on (the default).
TEST_F(BrowserPlugin, NoFramesToAnOlderHost) {
  Instance in;
  const_cast<agentry_host_t*>(in.host_.table())->abi_version.minor = 1;
  const std::string profile = (in.profile_.path() / "p").string();
  ASSERT_EQ(in.start({{"steps", json::array{step({{"action", "read"}})}}, {"chromium", "/nonexistent"}}, profile), AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "error");
  for (const auto& ev : in.host_.events()) EXPECT_NE(ev.type, 15);
}

TEST_F(BrowserPlugin, NoFramesWithTheLiveViewOff) {
  Instance in;
  const_cast<agentry_host_t*>(in.host_.table())->abi_version.minor = 2;
  const std::string profile = (in.profile_.path() / "p").string();
  ASSERT_EQ(in.start({{"steps", json::array{step({{"action", "read"}})}}, {"liveView", false}, {"chromium", "/nonexistent"}},
                     profile),
            AGENTRY_OK);
  EXPECT_EQ(in.wait_finished().at("outcome"), "error");
  for (const auto& ev : in.host_.events()) EXPECT_NE(ev.type, 15);
}

}  // namespace
}  // namespace agentry::test
