// plugins/common's AttemptEnding with real children: the conclusion waits for the exit and
// carries its code, an interrupt not honoured within its grace ends the hard way, an early
// exit is described with the child's stderr, and FINISHED goes out once.
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agentry/plugin/events.h"
#include "agentry/plugin_common/runtime/attempt_ending.hpp"
#include "agentry/plugin_common/runtime/child.hpp"
#include "agentry/plugin_common/runtime/event_sink.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "agentry/plugin_common/runtime/follow_ups.hpp"
#include "recording_host.hpp"

namespace agentry::plugin_common::runtime {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// What a backend around the piece would own, each piece constructed and used on the executor.
struct Attempt {
  explicit Attempt(const agentry_host_t* table, Executor& executor)
      : host(table),
        events(host, "test"),
        ending(executor, events, follow_ups, child,
               {.child = "the child", .work = "its work was done", .stderr_name = "stderr", .exit_grace = 300ms}) {}

  void spawn(Executor& executor, const std::string& script) {
    ChildHandlers handlers;
    handlers.stdout_line = [](Line) {};
    handlers.exited = [this](WaitStatus status) { ending.exited(status, interrupted); };
    child = Child::spawn(executor.get_executor(), ChildSpec{"/bin/sh", {"sh", "-c", script}, {"PATH=/usr/bin:/bin"}, ""},
                         std::move(handlers));
  }

  agentry::plugin::Host host;
  EventSink events;
  FollowUps follow_ups;
  std::shared_ptr<Child> child;
  bool interrupted = false;
  AttemptEnding ending;
};

class AttemptEndingTest : public ::testing::Test {
 protected:
  AttemptEndingTest() { recorded.begin_attempt(); }
  ~AttemptEndingTest() override { executor.stop(); }  // before the attempt its handlers touch goes

  // Runs `work` on the executor and waits for it.
  void on_executor(std::function<void()> work) {
    auto done = std::make_shared<std::promise<void>>();
    executor.post([work = std::move(work), done] {
      work();
      done->set_value();
    });
    done->get_future().wait();
  }
  // The one FINISHED's payload, once it is there.
  boost::json::object finished() const {
    const auto ended = [](const auto& events) { return !events.empty() && events.back().type == AGENTRY_EVENT_FINISHED; };
    EXPECT_TRUE(recorded.wait_until(ended, 20s));
    EXPECT_THAT(recorded.violations(), IsEmpty());
    EXPECT_EQ(recorded.finished_count(), 1);
    return recorded.events().back().payload;
  }

  test::RecordingHost recorded;
  Executor executor;
  Attempt attempt{recorded.table(), executor};
};

TEST_F(AttemptEndingTest, WithoutAChildTheConclusionIsFinishedAtOnceAndFollowUpsAreRefused) {
  on_executor([&] {
    attempt.ending.conclude("error", "no session");
    attempt.ending.conclude("success", {});
  });
  const boost::json::object payload = finished();
  EXPECT_EQ(payload.at("outcome"), "error");
  EXPECT_EQ(payload.at("message"), "no session");
  EXPECT_FALSE(attempt.ending.running());
  EXPECT_FALSE(attempt.follow_ups.add("too late"));
}

TEST_F(AttemptEndingTest, TheConclusionClosesStdinAndFinishesWithTheExitCode) {
  on_executor([&] {
    attempt.spawn(executor, "cat >/dev/null; exit 3");
    attempt.ending.conclude("success", {});
  });
  const boost::json::object payload = finished();
  EXPECT_EQ(payload.at("outcome"), "success");
  EXPECT_EQ(payload.at("exitCode"), 3);
}

TEST_F(AttemptEndingTest, AnInterruptNotHonouredWithinItsGraceConcludesAndKills) {
  const auto started = std::chrono::steady_clock::now();
  on_executor([&] {
    attempt.spawn(executor, "trap '' TERM; while :; do sleep 0.1; done");
    attempt.interrupted = true;
    attempt.ending.expect_stop_within(200ms, "interrupted; the child did not stop within the grace period");
  });
  const boost::json::object payload = finished();
  EXPECT_EQ(payload.at("outcome"), "interrupted");
  EXPECT_EQ(payload.at("message"), "interrupted; the child did not stop within the grace period");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
}

TEST_F(AttemptEndingTest, AConclusionWithinTheGraceWins) {
  on_executor([&] {
    attempt.spawn(executor, "cat >/dev/null");
    attempt.ending.expect_stop_within(300ms, "interrupted; too slow");
    attempt.ending.conclude("interrupted", "interrupted");
  });
  const boost::json::object payload = finished();
  EXPECT_EQ(payload.at("message"), "interrupted");
  EXPECT_EQ(payload.at("exitCode"), 0);
}

TEST_F(AttemptEndingTest, AnExitBeforeTheConclusionIsAnErrorThatQuotesStderr) {
  on_executor([&] { attempt.spawn(executor, "echo 'no API key' >&2; exit 2"); });
  const boost::json::object payload = finished();
  EXPECT_EQ(payload.at("outcome"), "error");
  EXPECT_THAT(std::string(payload.at("message").as_string()),
              HasSubstr("the child exited with code 2 before its work was done; stderr: no API key"));
}

TEST_F(AttemptEndingTest, AbandonFinishesOnceAndKillsTheChildWithoutItsHandlers) {
  on_executor([&] {
    attempt.spawn(executor, "sleep 30");
    attempt.ending.abandon();
    attempt.ending.conclude("success", {});
    attempt.ending.finish("error", "twice", std::nullopt);
  });
  const boost::json::object payload = finished();
  EXPECT_EQ(payload.at("outcome"), "interrupted");
  EXPECT_EQ(payload.at("message"), "the backend instance was destroyed");
  EXPECT_FALSE(attempt.ending.running());
}

}  // namespace
}  // namespace agentry::plugin_common::runtime
