// The misbehaving fakes really misbehave the way the daemon's loader tests expect, and
// the C++ glue keeps seq strictly increasing under concurrency and BUSY answers.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "abi/plugin_fixture.hpp"

namespace agentry::abi_test {
namespace {

void expect_strictly_increasing_seq(const std::vector<RecordedEvent>& events) {
  uint64_t last = 0;
  for (const auto& e : events) {
    ASSERT_GT(e.seq, last) << "seq does not increase";
    last = e.seq;
  }
}

TEST(FakePlugins, OkFinishesSuccess) {
  InitializedPlugin plugin(fake_plugin_path("ok"));
  Instance in(plugin, "fake-ok");
  ASSERT_EQ(in.init(), AGENTRY_OK);
  ASSERT_EQ(in.start({}), AGENTRY_OK);
  EXPECT_EQ(in.host.wait_outcome(), "success");
  const auto events = in.host.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, AGENTRY_EVENT_MESSAGE_COMPLETED);
  EXPECT_EQ(events[0].seq, 1u);
  EXPECT_EQ(events[1].flags, uint32_t{AGENTRY_EVENT_FLAG_TERMINAL});
}

TEST(FakePlugins, MalformedJsonIsRejectedAndReported) {
  InitializedPlugin plugin(fake_plugin_path("malformed_json"));
  Instance in(plugin, "fake-malformed_json");
  ASSERT_EQ(in.init(), AGENTRY_OK);
  ASSERT_EQ(in.start({}), AGENTRY_OK);
  EXPECT_EQ(in.host.wait_outcome(), "success");
  EXPECT_EQ(in.host.rejected(), 1u);
  const auto notice = in.host.wait_event(AGENTRY_EVENT_NOTICE);
  EXPECT_EQ(notice.object().at("status").as_int64(), AGENTRY_ERR_INVALID_ARGUMENT);
  expect_strictly_increasing_seq(in.host.events());
}

TEST(FakePlugins, NeverTerminalIgnoresInterrupt) {
  InitializedPlugin plugin(fake_plugin_path("never_terminal"));
  Instance in(plugin, "fake-never_terminal");
  ASSERT_EQ(in.init(), AGENTRY_OK);
  ASSERT_EQ(in.start({}), AGENTRY_OK);
  in.host.wait_event(AGENTRY_EVENT_NOTICE);
  EXPECT_EQ(in.interrupt("stop"), AGENTRY_OK);
  EXPECT_EQ(in.host.wait_outcome(std::chrono::milliseconds(300)), "");
  EXPECT_EQ(in.host.events().size(), 1u);
}

TEST(FakePlugins, EmitsAfterGraceGoesOnEmittingAndLoggingAfterInterrupt) {
  InitializedPlugin plugin(fake_plugin_path("emits_after_grace"));
  Instance in(plugin, "fake-emits_after_grace");
  ASSERT_EQ(in.init(), AGENTRY_OK);
  ASSERT_EQ(in.start({}), AGENTRY_OK);
  in.host.wait_event(AGENTRY_EVENT_NOTICE);
  EXPECT_EQ(in.interrupt("stop"), AGENTRY_OK);
  ASSERT_TRUE(in.host.wait_until([](const auto& e) { return e.size() >= 6; }));
  EXPECT_GE(in.host.logs().size(), 4u);
  in.destroy();  // joins its thread, once it has emitted for 2 s
  const auto events = in.host.events();
  EXPECT_EQ(events.size(), 101u);
  EXPECT_EQ(outcome_of(events), "") << "it never finishes";
  expect_strictly_increasing_seq(events);
}

TEST(FakePlugins, ManyThreadsKeepSeqStrictlyIncreasingThroughBusy) {
  InitializedPlugin plugin(fake_plugin_path("many_threads"));
  Instance in(plugin, "fake-many_threads");
  in.host.set_busy_every(7);  // backpressure: obligation 9 retries must cope
  ASSERT_EQ(in.init(), AGENTRY_OK);
  ASSERT_EQ(in.start({}), AGENTRY_OK);
  ASSERT_EQ(in.host.wait_outcome(std::chrono::seconds(60)), "success");
  const auto events = in.host.events();
  ASSERT_EQ(events.size(), 16u * 500u + 1u);
  EXPECT_EQ(events.back().type, AGENTRY_EVENT_FINISHED);
  EXPECT_GT(in.host.busy_answers(), 0u);
  expect_strictly_increasing_seq(events);
  // A second attempt on the same instance continues the numbering.
  const uint64_t last = events.back().seq;
  in.host.set_busy_every(0);
  ASSERT_EQ(in.start({}), AGENTRY_OK);
  ASSERT_TRUE(in.host.wait_until([](const auto& e) { return e.size() == 2 * (16u * 500u + 1u); },
                                 std::chrono::seconds(60)));
  EXPECT_GT(in.host.events()[events.size()].seq, last);
}

}  // namespace
}  // namespace agentry::abi_test
