#pragma once
// The stream a WebSocket connection writes through: what is written while a write is
// already on its way to the socket is gathered and sent with the next one. The
// WebSocket layer writes each message by itself, so with a hundred notifications ready
// the socket gets one system call instead of a hundred; a lone message goes out at once.
//
// A write_some is accepted whole and completes at once; the bytes follow on the wire in
// order. write() accepts bytes the same way with no completion at all, for the
// connection's own framed messages (api/websocket_frame_header.hpp), so bytes written
// either way keep their order. While the connection holds the stream (it has more
// messages ready), bytes wait for the rest, up to 64 KiB. Whoever writes keeps pending_bytes() bounded (the connection waits for
// drained() before writing more), and its bytes count, until written, in the
// connections' share of the stream memory (api/unsent_memory.hpp) when given one. Only
// ws_connection.cpp uses it; everything runs on the connection's strand.

#include "api/served_stream.hpp"
#include "core/byte_budget.hpp"

#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/websocket/teardown.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace agentry::api {

class CoalescingStream {
 public:
  using executor_type = ServedStream::executor_type;

  explicit CoalescingStream(ServedStream stream, std::shared_ptr<core::ByteBudget> unsent = {})
      : state_(std::make_shared<State>(std::move(stream), std::move(unsent))) {}

  executor_type get_executor() { return state_->next.get_executor(); }
  ServedStream& next_layer() { return state_->next; }

  template <class MutableBuffers, class Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    return state_->next.async_read_some(buffers, std::forward<Token>(token));
  }

  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
        [state = state_](auto handler, const ConstBuffers& data) {
          const std::size_t n = accept(state, data);
          auto executor = state->next.get_executor();
          boost::asio::post(executor, boost::beast::bind_front_handler(std::move(handler), state->failed, n));
        },
        token, buffers);
  }

  /// Accepts `buffers` whole, as async_write_some does, with nothing to wait for. False
  /// once a write to the socket has failed (nothing is accepted then).
  template <class ConstBuffers>
  bool write(const ConstBuffers& buffers) {
    accept(state_, buffers);
    return !state_->failed;
  }

  /// While held, accepted bytes wait (up to `hold_limit`) for release(): the connection
  /// holds while it has more messages ready, so they leave in one write.
  void hold() { state_->held = true; }
  void release() {
    state_->held = false;
    flush(state_);
  }
  static constexpr std::size_t hold_limit = 64 * 1024;

  /// Bytes accepted and not yet written to the socket.
  std::size_t pending_bytes() const { return state_->pending.size() + state_->sending.size(); }
  /// When the write now on its way to the socket began; nothing when none is.
  std::optional<std::chrono::steady_clock::time_point> write_started() const { return state_->started; }
  /// Wakes whoever waits in drained() after each write to the socket.
  boost::asio::steady_timer& drained() { return state_->drained; }

 private:
  struct State {
    State(ServedStream s, std::shared_ptr<core::ByteBudget> budget)
        : next(std::move(s)), unsent(std::move(budget), 0), drained(next.get_executor()) {}
    ServedStream next;
    core::ByteHold unsent;  // pending + sending
    std::string pending;  // accepted while `sending` is on its way
    std::string sending;
    std::optional<std::chrono::steady_clock::time_point> started;
    bool held = false;
    boost::system::error_code failed;
    boost::asio::steady_timer drained;
  };

  template <class ConstBuffers>
  static std::size_t accept(const std::shared_ptr<State>& state, const ConstBuffers& data) {
    if (state->failed) return 0;
    std::size_t n = 0;
    for (auto b : boost::beast::buffers_range_ref(data)) {
      state->pending.append(static_cast<const char*>(b.data()), b.size());
      n += b.size();
    }
    state->unsent.grow(n);
    flush(state);
    return n;
  }

  static void flush(const std::shared_ptr<State>& state) {
    if (state->started || state->pending.empty() || state->failed) return;
    if (state->held && state->pending.size() < hold_limit) return;
    state->sending.swap(state->pending);
    state->started = std::chrono::steady_clock::now();
    boost::asio::async_write(state->next, boost::asio::buffer(state->sending),
                             [state](boost::system::error_code ec, std::size_t) {
                               state->started.reset();
                               state->unsent.shrink(state->sending.size());
                               state->sending.clear();
                               if (ec) {
                                 state->failed = ec;
                                 state->unsent.shrink(state->pending.size());
                                 state->pending.clear();
                               }
                               state->drained.cancel();
                               flush(state);
                             });
  }

  std::shared_ptr<State> state_;
};

/// Closing: the WebSocket layer shuts the connection down after its close frame,
/// which this stream may still be sending; the shutdown waits for it.
template <class Handler>
void async_teardown(boost::beast::role_type role, CoalescingStream& stream, Handler&& handler) {
  if (stream.write_started()) {
    stream.drained().expires_at(std::chrono::steady_clock::time_point::max());
    stream.drained().async_wait([role, &stream, h = std::forward<Handler>(handler)](boost::system::error_code) mutable {
      agentry::api::async_teardown(role, stream, std::move(h));
    });
    return;
  }
  using boost::beast::websocket::async_teardown;
  async_teardown(role, stream.next_layer(), std::forward<Handler>(handler));
}

inline void teardown(boost::beast::role_type role, CoalescingStream& stream, boost::system::error_code& ec) {
  using boost::beast::websocket::teardown;
  teardown(role, stream.next_layer(), ec);
}

}  // namespace agentry::api
