// Messages a connection frames itself (api/websocket_frame_header.hpp, written with
// CoalescingStream::write) read back whole through a real WebSocket client, at every
// length the header encodes differently, in order with a message the WebSocket layer
// writes between them.
#include "api/coalescing_stream.hpp"
#include "api/websocket_frame_header.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>
#include <gtest/gtest.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

#include <sys/socket.h>

namespace agentry::api {
namespace {
namespace net = boost::asio;
namespace websocket = boost::beast::websocket;

TEST(WebSocketFrameHeader, EncodesEachLengthInTheFewestBytes) {
  auto bytes = [](std::uint64_t n) {
    const auto h = text_frame_header(n);
    return std::vector<int>(h.bytes.begin(), h.bytes.begin() + static_cast<std::ptrdiff_t>(h.size));
  };
  EXPECT_EQ(bytes(0), (std::vector<int>{0x81, 0}));
  EXPECT_EQ(bytes(125), (std::vector<int>{0x81, 125}));
  EXPECT_EQ(bytes(126), (std::vector<int>{0x81, 126, 0, 126}));
  EXPECT_EQ(bytes(65535), (std::vector<int>{0x81, 126, 0xFF, 0xFF}));
  EXPECT_EQ(bytes(65536), (std::vector<int>{0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(bytes(0x0102030405060708), (std::vector<int>{0x81, 127, 1, 2, 3, 4, 5, 6, 7, 8}));
}

/// `n` bytes of text that differ from one message to the next.
std::string message_of(std::size_t n, char first) {
  std::string text(n, ' ');
  for (std::size_t i = 0; i < n; ++i) text[i] = static_cast<char>(first + static_cast<char>(i % 23));
  return text;
}

TEST(WebSocketFraming, SelfFramedMessagesReadBackWholeAndInOrder) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  const std::vector<std::size_t> lengths{0, 1, 125, 126, 127, 65535, 65536, 70000, 300000};
  std::vector<std::string> sent;
  for (std::size_t i = 0; i < lengths.size(); ++i) sent.push_back(message_of(lengths[i], static_cast<char>('a' + i)));
  const std::string through_the_layer = "{\"written\":\"by the WebSocket layer\"}";

  // The client: a plain WebSocket client on its own thread, reading every message.
  std::promise<std::vector<std::string>> received;
  std::thread client([&, fd = fds[1]] {
    std::vector<std::string> got;
    try {
      net::io_context io;
      net::local::stream_protocol::socket socket(io);
      socket.assign(net::local::stream_protocol(), fd);
      websocket::stream<net::local::stream_protocol::socket> ws(std::move(socket));
      ws.handshake("localhost", "/");
      for (std::size_t i = 0; i < lengths.size() + 1; ++i) {
        boost::beast::flat_buffer buffer;
        ws.read(buffer);
        EXPECT_TRUE(ws.got_text());
        got.push_back(boost::beast::buffers_to_string(buffer.data()));
      }
      ws.close(websocket::close_code::normal);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "client: " << e.what();
    }
    received.set_value(std::move(got));
  });

  // The server: the connection's stack, writing most messages framed by itself.
  net::io_context io;
  ServedSocket socket(io);
  socket.assign(ServedProtocol(AF_UNIX, 0), fds[0]);
  websocket::stream<CoalescingStream> ws(CoalescingStream(ServedStream(std::move(socket))));
  net::co_spawn(
      io,
      [&]() -> net::awaitable<void> {
        co_await ws.async_accept(net::use_awaitable);
        auto& stream = ws.next_layer();
        auto write_framed = [&](const std::string& text) {
          const auto h = text_frame_header(text.size());
          const std::array<net::const_buffer, 2> parts{net::buffer(h.bytes.data(), h.size), net::buffer(text)};
          EXPECT_TRUE(stream.write(parts));
        };
        stream.hold();
        for (std::size_t i = 0; i < sent.size() / 2; ++i) write_framed(sent[i]);
        stream.release();
        ws.text(true);
        co_await ws.async_write(net::buffer(through_the_layer), net::use_awaitable);
        for (std::size_t i = sent.size() / 2; i < sent.size(); ++i) write_framed(sent[i]);
        boost::beast::flat_buffer buffer;
        boost::system::error_code ec;
        co_await ws.async_read(buffer, net::redirect_error(net::use_awaitable, ec));
        EXPECT_EQ(ec, websocket::error::closed);
      },
      net::detached);
  io.run();
  client.join();

  auto got = received.get_future().get();
  std::vector<std::string> expected(sent.begin(), sent.begin() + static_cast<std::ptrdiff_t>(sent.size() / 2));
  expected.push_back(through_the_layer);
  expected.insert(expected.end(), sent.begin() + static_cast<std::ptrdiff_t>(sent.size() / 2), sent.end());
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(got[i] == expected[i]) << "message " << i;
}

}  // namespace
}  // namespace agentry::api
