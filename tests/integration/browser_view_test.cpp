// The browser live view through the real daemon: a backend's BROWSER_FRAME events
// (the mock's frame steps; the real browser backend in browser_backend_test.cpp) reach
// the run's frame stream over SSE and WebSocket, the latest one is served as an image,
// nothing of it lands in the timeline, and a run without a view says why.
#include "daemon_fixture.hpp"
#include "support/sse_parser.hpp"
#include "support/ws_client.hpp"

#include <filesystem>
#include <iostream>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using namespace std::chrono_literals;

class BrowserViewTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    start_daemon();
  }

  json::object next_json(test::SseReader& sse) { return json::parse(sse.expect_next(10s).data).as_object(); }

  /// Reads the stream until a frame event whose url is `url` arrives.
  json::object frame_with_url(test::SseReader& sse, const std::string& url) {
    for (int i = 0; i < 200; ++i) {
      auto event = next_json(sse);
      if (event.at("type") == "browser_frame" && event.at("url").as_string() == url) return event;
    }
    ADD_FAILURE() << "no frame with url " << url;
    return {};
  }
};

TEST_F(BrowserViewTest, FramesReachTheStreamAndTheLatestIsServedAsAJpeg) {
  write_agent("viewer", "mock", "{steps: [{frame: {count: 3}}, {hang: true}]}");
  auto run = start_agent_run("viewer");
  auto sse = client().sse("/api/runs/" + run + "/events/browser");
  // The stream may open before or after the frames: it skips to the newest one.
  auto frame = frame_with_url(sse, "mock://frame/3");
  EXPECT_EQ(frame.at("runId").as_string(), run);
  EXPECT_EQ(frame.at("mime"), "image/jpeg");
  EXPECT_EQ(frame.at("width"), 8);
  EXPECT_GT(frame.at("seq").as_int64(), 0);
  EXPECT_FALSE(frame.at("data").as_string().empty());
  EXPECT_TRUE(sse.last_event_id().empty()) << "frames are not resumable by cursor";

  auto image = client().get("/api/runs/" + run + "/browser/frame");
  ASSERT_EQ(image.status, 200) << image.body;
  EXPECT_EQ(image.header("content-type"), "image/jpeg");
  EXPECT_EQ(image.header("cache-control"), "no-store");
  ASSERT_GE(image.body.size(), 4u);
  EXPECT_EQ(static_cast<unsigned char>(image.body[0]), 0xFF);
  EXPECT_EQ(static_cast<unsigned char>(image.body[1]), 0xD8);
  EXPECT_EQ(static_cast<unsigned char>(image.body[image.body.size() - 2]), 0xFF);
  EXPECT_EQ(static_cast<unsigned char>(image.body[image.body.size() - 1]), 0xD9);
  EXPECT_EQ(image.header("x-agentry-frame-seq"), std::to_string(frame.at("seq").as_int64()));

  // Never stored: the timeline has no trace of a frame.
  client().post_json("/api/runs/" + run + "/abort", json::object{});
  wait_until_settled(run);
  for (const auto& e : timeline(run)) EXPECT_EQ(e.at("kind").as_string().find("browser"), json::string::npos) << e;
}

TEST_F(BrowserViewTest, AWebSocketSubscriberGetsTheSameFrames) {
  write_agent("viewer", "mock", "{steps: [{sleepMs: 300}, {frame: {count: 2}}, {hang: true}]}");
  auto run = start_agent_run("viewer");
  test::WsClient ws("127.0.0.1", daemon_->port());
  auto subscribed = ws.call("events.subscribe", json::object{{"channel", "run_browser"}, {"runId", run}});
  ASSERT_TRUE(subscribed.contains("result")) << json::serialize(subscribed);
  bool got = false;
  for (int i = 0; i < 50 && !got; ++i) {
    auto n = ws.next_notification(10s);
    ASSERT_TRUE(n) << "no notification";
    ASSERT_EQ(n->at("method"), "run.browser") << json::serialize(*n);
    const auto& params = n->at("params").as_object();
    EXPECT_EQ(params.at("runId").as_string(), run);
    if (params.at("type") == "browser_unavailable")  // subscribed before the first frame
      EXPECT_NE(params.at("reason").as_string().find("no frame yet"), json::string::npos) << json::serialize(params);
    else if (params.at("url") == "mock://frame/2")
      got = true;
  }
  EXPECT_TRUE(got) << "the second frame did not arrive over WebSocket";
  client().post_json("/api/runs/" + run + "/abort", json::object{});
  wait_until_settled(run);
}

TEST_F(BrowserViewTest, ARunWithoutAViewSaysWhyInsteadOfABlank) {
  write_agent("quick", "mock", "{steps: [{say: done}]}");
  auto run = start_agent_run("quick");
  ASSERT_EQ(wait_until_settled(run), "success");
  auto image = client().get("/api/runs/" + run + "/browser/frame");
  EXPECT_EQ(image.status, 404) << image.body;
  EXPECT_EQ(error_code_of(image), "NOT_FOUND");
  const auto details = image.json().at("error").at("details").as_object();
  EXPECT_EQ(details.at("liveView"), "unavailable");
  EXPECT_NE(details.at("reason").as_string().find("the run is success"), json::string::npos) << image.body;

  auto sse = client().sse("/api/runs/" + run + "/events/browser");
  auto event = next_json(sse);
  EXPECT_EQ(event.at("type"), "browser_unavailable");
  EXPECT_EQ(event.at("reason"), details.at("reason"));
}

TEST_F(BrowserViewTest, ABackendsUnavailableReasonIsWhatTheViewShows) {
  write_agent("broken", "mock",
              "{steps: [{frame: {unavailable: 'Chromium exited unexpectedly'}}, {hang: true}]}");
  auto run = start_agent_run("broken");
  auto sse = client().sse("/api/runs/" + run + "/events/browser");
  json::object event;
  for (int i = 0; i < 20; ++i) {
    event = next_json(sse);
    if (event.at("reason") == "Chromium exited unexpectedly") break;
  }
  EXPECT_EQ(event.at("type"), "browser_unavailable");
  EXPECT_EQ(event.at("reason"), "Chromium exited unexpectedly");
  auto image = client().get("/api/runs/" + run + "/browser/frame");
  EXPECT_EQ(image.status, 404);
  EXPECT_NE(image.body.find("Chromium exited unexpectedly"), std::string::npos) << image.body;
  client().post_json("/api/runs/" + run + "/abort", json::object{});
  wait_until_settled(run);
}

TEST_F(BrowserViewTest, BadRequestsGetTheErrorEnvelope) {
  auto missing = client().get("/api/runs/run_doesnotexist/browser/frame");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(error_code_of(missing), "NOT_FOUND");
  auto bad_id = client().get("/api/runs/..%2Fetc/browser/frame");
  EXPECT_EQ(bad_id.status, 400) << bad_id.body;
  write_agent("quick", "mock", "{steps: [{say: done}]}");
  auto run = start_agent_run("quick");
  auto query = client().get("/api/runs/" + run + "/browser/frame?size=big");
  EXPECT_EQ(query.status, 400) << query.body;
  test::WsClient ws("127.0.0.1", daemon_->port());
  auto wrong = ws.call("events.subscribe", json::object{{"channel", "run_browser"}});
  EXPECT_TRUE(wrong.contains("error")) << json::serialize(wrong);
}

TEST_F(BrowserViewTest, ADeletedRunsFrameStreamEnds) {
  write_agent("viewer", "mock", "{steps: [{frame: {count: 1}}]}");
  auto run = start_agent_run("viewer");
  ASSERT_EQ(wait_until_settled(run), "success");
  auto sse = client().sse("/api/runs/" + run + "/events/browser");
  auto frame = next_json(sse);
  EXPECT_EQ(frame.at("type"), "browser_frame");
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/archive", json::object{}).status, 200);
  auto deleted = client().del("/api/runs/" + run);
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  auto removed = next_json(sse);
  EXPECT_EQ(removed.at("type"), "run_removed");
  EXPECT_TRUE(sse.wait_for_end(10s));
}

// Real Chromium with the live view on: its screencast reaches the stream as JPEG frames.
// Prints the time to the first frame and the frames per second delivered (figures for
// docs and notes, not asserted: speed is not a unit test's business).
TEST_F(BrowserViewTest, AChromiumScreencastReachesTheStream) {
  if (!std::filesystem::exists("/usr/bin/chromium")) GTEST_SKIP() << "/usr/bin/chromium is not installed";
  // A CSS animation repaints all the time (timers of a headless page may be throttled).
  const std::string page =
      "data:text/html,<style>@keyframes k{from{background:%23fc8}to{background:%238cf}}"
      "body{animation:k .4s infinite alternate}</style><body><h1 id=t>tick 0</h1><script>let i=0;"
      "setInterval(()=>{document.getElementById('t').textContent='tick '+(++i)},250)</script></body>";
  json::object config{{"liveView", true},
                      {"steps", json::array{json::object{{"action", "navigate"}, {"url", page}},
                                            json::object{{"action", "waitFor"}, {"text", "tick 8"}, {"timeoutMs", 30000}},
                                            json::object{{"action", "finish"}, {"summary", "watched"}}}}};
  write_agent("watcher", "browser", json::serialize(config));
  const auto started = std::chrono::steady_clock::now();
  auto run = start_agent_run("watcher");
  auto sse = client().sse("/api/runs/" + run + "/events/browser");
  std::vector<std::chrono::steady_clock::time_point> arrivals;
  json::object last;
  while (true) {
    auto event = sse.next(arrivals.empty() ? 30s : 5s);  // the run ends after a few seconds
    if (!event) break;
    auto data = json::parse(event->data).as_object();
    if (data.at("type") != "browser_frame") continue;
    arrivals.push_back(std::chrono::steady_clock::now());
    last = data;
    if (arrivals.size() >= 12) break;
  }
  ASSERT_GE(arrivals.size(), 2u) << "frames from Chromium did not reach the stream";
  EXPECT_EQ(last.at("mime"), "image/jpeg");
  EXPECT_GT(last.at("width").as_int64(), 0);
  auto image = client().get("/api/runs/" + run + "/browser/frame");
  ASSERT_EQ(image.status, 200) << image.body;
  EXPECT_EQ(static_cast<unsigned char>(image.body[0]), 0xFF);
  EXPECT_EQ(static_cast<unsigned char>(image.body[1]), 0xD8);
  EXPECT_EQ(wait_until_settled(run, 60s), "success") << json::serialize(get_run(run).at("statusReason"));

  using ms = std::chrono::duration<double, std::milli>;
  const double first = ms(arrivals.front() - started).count();
  const double span = ms(arrivals.back() - arrivals.front()).count();
  const double fps = span > 0 ? (arrivals.size() - 1) * 1000.0 / span : 0;
  std::cout << "[ figures ] live view: first frame " << first << " ms after the start request; " << fps
            << " frames/s delivered over " << arrivals.size() << " frames\n";
  RecordProperty("first_frame_ms", static_cast<int>(first));
  RecordProperty("frames_per_second_x100", static_cast<int>(fps * 100));
}

}  // namespace
}  // namespace agentry::integration
