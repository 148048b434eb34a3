// Responses that wait on a write (OperationResult::after_write) through the real HTTP
// server on a loopback port: the worker that routed the request starts the write and is
// free; a "writer" thread replies later, and the connection builds the response. Also
// finish(), which waits in place for callers that may.

#include "api/http_routes.hpp"
#include "api/http_server.hpp"
#include "api/operations.hpp"
#include "api/router.hpp"
#include "served_router.hpp"
#include "support/http_client.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace agentry::api {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

/// Stands in for the store's writer: runs each reply on a thread of its own, after `delay`.
class FakeWriter {
 public:
  ~FakeWriter() { join(); }
  void reply_later(AnswerReply reply, MakeAnswer make, std::chrono::milliseconds delay) {
    std::lock_guard lock(mutex_);
    threads_.emplace_back([reply = std::move(reply), make = std::move(make), delay] {
      std::this_thread::sleep_for(delay);
      reply(make);
    });
  }
  void join() {
    std::vector<std::thread> threads;
    {
      std::lock_guard lock(mutex_);
      threads.swap(threads_);
    }
    for (auto& t : threads) t.join();
  }

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};

/// An operation result whose answer comes from `writer` after `delay`.
OperationResult answered_after(FakeWriter& writer, MakeAnswer make, std::chrono::milliseconds delay = 20ms) {
  OperationResult later;
  later.after_write = [&writer, make = std::move(make), delay](AnswerReply reply) {
    writer.reply_later(std::move(reply), make, delay);
  };
  return later;
}

TEST(HttpAfterWriteTest, TheAnswerIsMadeOffTheWriterAndSentWithItsStatus) {
  FakeWriter writer;
  std::mutex mutex;
  std::thread::id writer_thread, maker_thread;
  ServedRouter s;
  s.router.add("POST", "/later", [&](const HttpRequest&) {
    OperationResult later;
    later.after_write = [&](AnswerReply reply) {
      auto make = [&]() -> core::Result<OperationResult> {
        std::lock_guard lock(mutex);
        maker_thread = std::this_thread::get_id();
        return OperationResult{json::object{{"made", "after the write"}}, 201};
      };
      writer.reply_later(
          [&, reply](MakeAnswer m) {
            {
              std::lock_guard lock(mutex);
              writer_thread = std::this_thread::get_id();
            }
            reply(std::move(m));
          },
          make, 20ms);
    };
    return operation_response(std::move(later));
  });
  s.start();
  test::HttpClient client("127.0.0.1", s.port);
  auto response = client.post("/later", "{}");
  EXPECT_EQ(response.status, 201) << response.body;
  EXPECT_EQ(response.json().at("made"), "after the write");
  std::lock_guard lock(mutex);
  EXPECT_NE(writer_thread, std::thread::id());
  EXPECT_NE(maker_thread, std::thread::id());
  EXPECT_NE(maker_thread, writer_thread);  // the writer only hands the maker on
}

TEST(HttpAfterWriteTest, ManyWaitingAnswersNeedNoWorkerEach) {
  // The "writer" answers nobody until all twelve writes are queued. On one request
  // worker that only happens if no worker waits for its write's answer.
  constexpr std::size_t clients_count = 12;
  std::mutex mutex;
  std::condition_variable queued;
  std::vector<std::pair<AnswerReply, MakeAnswer>> writes;
  ServedRouter s;
  s.router.add("POST", "/later", [&](const HttpRequest& request) {
    OperationResult later;
    later.after_write = [&, body = request.body](AnswerReply reply) {
      std::lock_guard lock(mutex);
      writes.emplace_back(std::move(reply), [body]() -> core::Result<OperationResult> {
        return OperationResult{json::parse(body), 200};
      });
      queued.notify_all();
    };
    return operation_response(std::move(later));
  });
  s.start(ServerThreads{.io = 2, .workers = 1, .slow_workers = 1, .blocking_workers = 1});
  std::thread writer([&] {
    std::unique_lock lock(mutex);
    queued.wait_for(lock, 10s, [&] { return writes.size() == clients_count; });
    for (auto& [reply, make] : writes) reply(make);
  });
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int i = 0; i < static_cast<int>(clients_count); ++i)
    clients.emplace_back([&, i] {
      test::HttpClient client("127.0.0.1", s.port);
      client.set_timeout(20s);
      auto response = client.post("/later", json::serialize(json::object{{"i", i}}));
      if (response.status == 200 && response.json().at("i") == i) ++ok;
    });
  writer.join();
  for (auto& c : clients) c.join();
  EXPECT_EQ(writes.size(), clients_count);  // all were queued before any was answered
  EXPECT_EQ(ok, static_cast<int>(clients_count));
}

TEST(HttpAfterWriteTest, AFailureAndAThrowingMakerBecomeErrorEnvelopes) {
  FakeWriter writer;
  ServedRouter s;
  s.router.add("POST", "/refused", [&](const HttpRequest&) {
    return operation_response(answered_after(writer, []() -> core::Result<OperationResult> {
      return core::fail(core::ErrorCode::not_found, "the write was refused");
    }));
  });
  s.router.add("POST", "/throws", [&](const HttpRequest&) {
    return operation_response(answered_after(writer, []() -> core::Result<OperationResult> {
      throw std::runtime_error("making the answer failed");
    }));
  });
  s.router.add("POST", "/start-throws", [&](const HttpRequest&) {
    OperationResult later;
    later.after_write = [](AnswerReply) { throw std::runtime_error("could not queue the write"); };
    return operation_response(std::move(later));
  });
  s.start();
  test::HttpClient client("127.0.0.1", s.port);
  auto refused = client.post("/refused", "{}");
  EXPECT_EQ(refused.status, 404) << refused.body;
  EXPECT_EQ(refused.json().at("error").at("message"), "the write was refused");
  auto thrown = client.post("/throws", "{}");
  EXPECT_EQ(thrown.status, 500) << thrown.body;
  auto not_started = client.post("/start-throws", "{}");
  EXPECT_EQ(not_started.status, 500) << not_started.body;
  // The server goes on answering after each.
  EXPECT_EQ(client.post("/refused", "{}").status, 404);
}

TEST(HttpAfterWriteTest, AnAnswerThatThenWaitsOnAProgramFinishesOnTheBlockingPool) {
  FakeWriter writer;
  ServedRouter s;
  s.router.add("POST", "/later-then-blocking", [&](const HttpRequest&) {
    return operation_response(answered_after(writer, []() -> core::Result<OperationResult> {
      OperationResult blocking;
      blocking.blocking = []() -> core::Result<OperationResult> {
        return OperationResult{json::object{{"hook", "ran"}}, 200};
      };
      return blocking;
    }));
  });
  s.start();
  test::HttpClient client("127.0.0.1", s.port);
  auto response = client.post("/later-then-blocking", "{}");
  EXPECT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(response.json().at("hook"), "ran");
}

TEST(HttpAfterWriteTest, TheServerWaitsForAnOutstandingReplyBeforeItGoesAway) {
  FakeWriter writer;
  std::atomic<bool> replied{false};
  ServedRouter s;
  s.router.add("POST", "/slow", [&](const HttpRequest&) {
    OperationResult later;
    later.after_write = [&](AnswerReply reply) {
      writer.reply_later(
          [&replied, reply](MakeAnswer make) {
            reply(std::move(make));
            replied = true;
          },
          [] { return core::Result<OperationResult>(OperationResult{json::object{}, 200}); }, 400ms);
    };
    return operation_response(std::move(later));
  });
  s.start();
  std::thread client_thread([&] {
    test::HttpClient client("127.0.0.1", s.port);
    client.set_timeout(5s);
    try {
      (void)client.post("/slow", "{}");
    } catch (const std::exception&) {
      // The server may close the connection as it stops: what matters is below.
    }
  });
  std::this_thread::sleep_for(100ms);  // the request waits on its "write"
  s.stop();                            // destroys the server: it must outlast the reply
  EXPECT_TRUE(replied);
  client_thread.join();
}

TEST(OperationsFinishTest, WaitsForAWriteAndRunsWhatFollowsInPlace) {
  FakeWriter writer;
  auto result = finish(answered_after(writer, []() -> core::Result<OperationResult> {
    OperationResult blocking;
    blocking.blocking = []() -> core::Result<OperationResult> { return OperationResult{json::object{{"n", 2}}}; };
    return blocking;
  }));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->body.at("n"), 2);
}

}  // namespace
}  // namespace agentry::api
