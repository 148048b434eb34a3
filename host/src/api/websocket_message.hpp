#pragma once
// One WebSocket JSON-RPC message waiting in a connection's outbox (ws_connection.cpp):
// an answer's text, or a stream notification gathered from pieces nobody copies: its
// subscription's head (shared by all of the subscription's notifications), the event's
// cursor written in place, the event's shared frame and the closing braces. Nothing is
// allocated for a notification itself. Internal to the server TUs: it includes Asio.

#include "events/frame.hpp"

#include <boost/asio/buffer.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace agentry::api {

class OutgoingMessage {
 public:
  static OutgoingMessage answer(std::string text) {
    OutgoingMessage out;
    out.text_ = std::move(text);
    return out;
  }

  /// `head`: the notification's JSON up to the cursor's digits; a cursor of 0 is null.
  static OutgoingMessage notification(std::shared_ptr<const std::string> head, std::int64_t cursor,
                                      events::Frame frame) {
    OutgoingMessage out;
    out.head_ = std::move(head);
    char* end = out.middle_.data();
    constexpr std::string_view null_cursor = "null";
    if (cursor > 0) end = std::to_chars(end, end + 20, cursor).ptr;  // 19 digits at most
    else end = std::copy(null_cursor.begin(), null_cursor.end(), end);
    constexpr std::string_view joint = R"(,"event":)";
    end = std::copy(joint.begin(), joint.end(), end);
    out.middle_size_ = static_cast<std::uint8_t>(end - out.middle_.data());
    out.frame_ = std::move(frame);
    out.tail_ = "}}";
    return out;
  }

  /// The message's bytes.
  std::size_t size() const {
    return text_.size() + (head_ ? head_->size() : 0) + middle_size_ + (frame_ ? frame_->json().size() : 0) +
           tail_.size();
  }
  /// The message's bytes in order, valid while it lives.
  std::array<boost::asio::const_buffer, 5> buffers() const {
    namespace net = boost::asio;
    return {net::buffer(text_), head_ ? net::buffer(*head_) : net::const_buffer(),
            net::buffer(middle_.data(), middle_size_),
            frame_ ? net::buffer(frame_->json().data(), frame_->json().size()) : net::const_buffer(),
            net::buffer(tail_.data(), tail_.size())};
  }

 private:
  std::string text_;
  std::shared_ptr<const std::string> head_;
  std::array<char, 32> middle_{};  // the cursor's digits (or null) and ,"event":
  std::uint8_t middle_size_ = 0;
  events::Frame frame_;
  std::string_view tail_;
};

}  // namespace agentry::api
