#include "events/event_bus.hpp"

#include <gtest/gtest.h>

namespace agentry::events {
namespace {

TEST(EventBus, DeliversByChannelAndRun) {
  EventBus bus;
  std::vector<std::string> seen;
  auto one = bus.subscribe(Channel::audit, "run-a", [&](const Notification& n) { seen.push_back("a:" + n.run_id); });
  auto all = bus.subscribe(Channel::summary, "", [&](const Notification& n) { seen.push_back("all:" + n.run_id); });
  bus.notify(Channel::audit, "run-b");
  bus.notify(Channel::audit, "run-a");
  bus.run_changed("run-c");
  EXPECT_EQ(seen, (std::vector<std::string>{"a:run-a", "all:run-c"}));
}

TEST(EventBus, SubscriptionsEndWithTheirHandle) {
  EventBus bus;
  int calls = 0;
  {
    auto s = bus.subscribe(Channel::audit, "", [&](const Notification&) { ++calls; });
    bus.notify(Channel::audit, "x");
    EXPECT_EQ(bus.subscriber_count(), 1u);
  }
  bus.notify(Channel::audit, "x");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(bus.subscriber_count(), 0u);
}

TEST(EventBus, AListenerMayUnsubscribeItselfWhileBeingCalled) {
  EventBus bus;
  EventBus::Subscription s;
  int calls = 0;
  s = bus.subscribe(Channel::detail, "", [&](const Notification&) {
    ++calls;
    s = EventBus::Subscription{};
  });
  bus.notify(Channel::detail, "x");
  bus.notify(Channel::detail, "x");
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace agentry::events
