#include "cli/stream_pump.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace agentry::cli {
namespace {
namespace json = boost::json;

TEST(StreamPumpTest, NotificationsHaveTheDaemonsShape) {
  auto timeline = to_notification(events::make_frame(R"({"cursor":5,"kind":"notice"})", 5), "timeline", "sub_1", "r1");
  EXPECT_EQ(timeline.method, "run.timeline");
  EXPECT_EQ(timeline.params.at("subscriptionId"), "sub_1");
  EXPECT_EQ(timeline.params.at("runId"), "r1");
  EXPECT_EQ(timeline.params.at("cursor").as_int64(), 5);
  EXPECT_EQ(timeline.params.at("event").at("kind"), "notice");

  auto ephemeral = to_notification(events::make_frame(R"({"kind":"message.delta"})"), "timeline", "sub_1", "r1");
  EXPECT_TRUE(ephemeral.params.at("cursor").is_null());

  auto detail =
      to_notification(events::make_frame(R"({"type":"run_detail","run":{"runId":"r1"}})"), "detail", "sub_2", "r1");
  EXPECT_EQ(detail.method, "run.detail");
  EXPECT_EQ(detail.params.at("type"), "run_detail");
  EXPECT_EQ(detail.params.at("run").at("runId"), "r1");
  EXPECT_FALSE(detail.params.contains("event"));
}

/// A source that yields one event per poll until it has given `total`, then closes.
class CountingStream : public api::EventStream {
 public:
  explicit CountingStream(int total) : total_(total) {}
  const char* channel() const override { return "audit"; }
  void start(std::function<void()> wake) override { wake(); }
  api::StreamBatch poll(std::size_t, bool) override {
    ++given_;
    api::StreamBatch batch;
    batch.closed = given_ >= total_;
    batch.frames.push_back(events::make_frame("{}", given_));
    return batch;
  }

 private:
  int total_;
  int given_ = 0;
};

TEST(StreamPumpTest, PollsWithoutBeingWokenAndReportsTheEnd) {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::int64_t> cursors;
  bool closed = false;
  StreamHandlers handlers{[&](const StreamEvent& e) {
                            std::lock_guard lock(mutex);
                            cursors.push_back(e.params.at("cursor").as_int64());
                          },
                          [&](const std::string&) {
                            std::lock_guard lock(mutex);
                            closed = true;
                            cv.notify_all();
                          }};
  // Only the first poll is woken; the others come from the interval (another process's writes).
  StreamPump pump(std::make_shared<CountingStream>(3), "s", "r", handlers, std::chrono::milliseconds(5));
  std::unique_lock lock(mutex);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return closed; }));
  EXPECT_EQ(cursors, (std::vector<std::int64_t>{1, 2, 3}));
}

}  // namespace
}  // namespace agentry::cli
