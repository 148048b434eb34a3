// Quick reads (api/quick_reads.hpp): which requests are answered on the I/O thread, and
// that a server told its store allows it answers them while every request worker is busy.

#include "api/quick_reads.hpp"

#include "served_router.hpp"
#include "support/http_client.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <stdexcept>

namespace agentry::api {
namespace {
using namespace std::chrono_literals;

TEST(QuickReads, ARunsDetailIsOneAndNothingElse) {
  EXPECT_TRUE(is_quick_read("GET", "/api/runs/abc123"));
  EXPECT_TRUE(is_quick_read("GET", "/api/runs/a%20b"));
  EXPECT_FALSE(is_quick_read("POST", "/api/runs/abc123"));
  EXPECT_FALSE(is_quick_read("DELETE", "/api/runs/abc123"));
  EXPECT_FALSE(is_quick_read("GET", "/api/runs"));
  EXPECT_FALSE(is_quick_read("GET", "/api/runs/"));
  EXPECT_FALSE(is_quick_read("GET", "/api/runs/abc123/timeline"));
  EXPECT_FALSE(is_quick_read("GET", "/api/runs/abc123/"));
  EXPECT_FALSE(is_quick_read("GET", "/api/runsx/abc123"));
  EXPECT_TRUE(is_quick_method("runs.get"));
  EXPECT_FALSE(is_quick_method("runs.list"));
  EXPECT_FALSE(is_quick_method("runs.getx"));
}

/// A server on one request worker that a POST /hold keeps busy until release().
struct HeldWorker {
  ServedRouter served;
  std::mutex mutex;
  std::condition_variable changed;
  bool holding = false;
  bool released = false;
  std::future<int> hold_status;

  explicit HeldWorker(bool quick_reads_inline) {
    served.router.add("POST", "/hold", [this](const HttpRequest&) {
      std::unique_lock lock(mutex);
      holding = true;
      changed.notify_all();
      changed.wait(lock, [this] { return released; });
      return json_response(200, boost::json::object{{"held", true}});
    });
    served.router.add("GET", "/api/runs/:id", [](const HttpRequest& request) {
      return json_response(200, boost::json::object{{"runId", request.params.at("id")}});
    });
    served.start(ServerThreads{.io = 2, .workers = 1, .slow_workers = 1, .blocking_workers = 1},
                 [quick_reads_inline](HttpServer& server) { server.answer_quick_reads_inline(quick_reads_inline); });
    hold_status = std::async(std::launch::async, [this] {
      test::HttpClient client("127.0.0.1", served.port);
      return client.post("/hold", "{}").status;
    });
    std::unique_lock lock(mutex);
    if (!changed.wait_for(lock, 10s, [this] { return holding; })) throw std::runtime_error("the worker was never held");
  }
  void release() {
    {
      std::lock_guard lock(mutex);
      released = true;
    }
    changed.notify_all();
  }
  ~HeldWorker() {
    release();
    if (hold_status.valid()) hold_status.wait();
  }
};

TEST(QuickReads, ARunsDetailIsAnsweredWhileEveryRequestWorkerIsBusy) {
  HeldWorker server(true);
  test::HttpClient client("127.0.0.1", server.served.port);
  client.set_timeout(5s);
  const auto detail = client.get("/api/runs/r%2D1");
  EXPECT_EQ(detail.status, 200) << detail.body;
  EXPECT_EQ(detail.json().at("runId"), "r-1");  // routed as on a worker: parameters decoded
  server.release();
  EXPECT_EQ(server.hold_status.get(), 200);
}

TEST(QuickReads, WithoutTheSettingARunsDetailWaitsForAWorker) {
  HeldWorker server(false);
  test::HttpClient client("127.0.0.1", server.served.port);
  client.set_timeout(300ms);
  EXPECT_THROW(client.get("/api/runs/r1"), std::runtime_error);  // the one worker is held
  server.release();
  EXPECT_EQ(server.hold_status.get(), 200);
  test::HttpClient again("127.0.0.1", server.served.port);
  EXPECT_EQ(again.get("/api/runs/r1").status, 200);
}

}  // namespace
}  // namespace agentry::api
