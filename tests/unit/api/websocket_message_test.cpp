// A WebSocket connection's outgoing messages (api/websocket_message.hpp): what their
// pieces say together, the size that the outbox and the frame header count, and that a
// subscription's notifications share its head.

#include "api/websocket_message.hpp"

#include <gtest/gtest.h>

#include <boost/asio/buffer.hpp>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

namespace agentry::api {
namespace {

std::string joined(const OutgoingMessage& message) {
  std::string out;
  for (const auto& piece : message.buffers()) out.append(static_cast<const char*>(piece.data()), piece.size());
  return out;
}

TEST(WebSocketMessage, AnAnswerIsItsText) {
  const auto message = OutgoingMessage::answer(R"({"jsonrpc":"2.0","id":1,"result":{}})");
  EXPECT_EQ(joined(message), R"({"jsonrpc":"2.0","id":1,"result":{}})");
  EXPECT_EQ(message.size(), joined(message).size());
}

TEST(WebSocketMessage, ANotificationJoinsHeadCursorEventAndBraces) {
  auto head = std::make_shared<const std::string>(
      R"({"jsonrpc":"2.0","method":"run.timeline","params":{"subscriptionId":"sub_1","runId":"r1","cursor":)");
  const auto frame = events::timeline_frame({"r1", 42, "notice", 1, "2026-12-07T00:00:00.000Z", R"({"n":1})"}, 42);
  const auto message = OutgoingMessage::notification(head, 42, frame);
  EXPECT_EQ(joined(message), *head + R"(42,"event":)" + std::string(frame->json()) + "}}");
  EXPECT_EQ(message.size(), joined(message).size());

  // An ephemeral event has no cursor; the largest cursor still fits in place.
  EXPECT_EQ(joined(OutgoingMessage::notification(head, 0, frame)),
            *head + R"(null,"event":)" + std::string(frame->json()) + "}}");
  const auto largest = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(joined(OutgoingMessage::notification(head, largest, frame)),
            *head + std::to_string(largest) + R"(,"event":)" + std::string(frame->json()) + "}}");
}

TEST(WebSocketMessage, ASubscriptionsNotificationsShareItsHead) {
  auto head = std::make_shared<const std::string>("{\"head\":");
  const auto frame = events::make_frame(R"({"kind":"notice"})", 7);
  {
    const auto first = OutgoingMessage::notification(head, 7, frame);
    const auto second = OutgoingMessage::notification(head, 8, frame);
    EXPECT_EQ(head.use_count(), 3);
    EXPECT_NE(joined(first), joined(second));
  }
  EXPECT_EQ(head.use_count(), 1);
}

}  // namespace
}  // namespace agentry::api
