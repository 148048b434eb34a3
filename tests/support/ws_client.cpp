#include "support/ws_client.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <random>
#include <stdexcept>

namespace agentry::test {
namespace json = boost::json;
namespace {

std::string handshake_request(const std::string& host, std::uint16_t port,
                              const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out = "GET / HTTP/1.1\r\nHost: " + host_header(host, port) +
                    "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
  for (const auto& [name, value] : headers) out += name + ": " + value + "\r\n";
  return out + "\r\n";
}

/// Reads the HTTP response head (and, when it is not 101, the body until close).
std::pair<int, std::string> read_handshake(int fd, std::string& rest, Clock::time_point deadline) {
  std::string data;
  char buf[4096];
  std::size_t end;
  while ((end = data.find("\r\n\r\n")) == std::string::npos) {
    auto n = recv_some(fd, buf, sizeof buf, deadline);
    if (!n || *n == 0) throw std::runtime_error("websocket handshake: no complete response (got '" + data + "')");
    data.append(buf, *n);
  }
  int status = std::stoi(data.substr(9, 3));
  rest = data.substr(end + 4);
  if (status != 101) {
    for (;;) {
      auto n = recv_some(fd, buf, sizeof buf, deadline);
      if (!n || *n == 0) break;
      rest.append(buf, *n);
    }
  }
  return {status, rest};
}

}  // namespace

WsClient::WsClient(const std::string& host, std::uint16_t port,
                   std::vector<std::pair<std::string, std::string>> headers, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  fd_ = connect_stream(host, port, deadline);
  if (send_all(fd_.get(), handshake_request(host, port, headers), deadline) != SendResult::ok)
    throw std::runtime_error("websocket handshake: cannot send");
  auto [status, rest] = read_handshake(fd_.get(), buffer_, deadline);
  if (status != 101)
    throw std::runtime_error("websocket handshake refused with HTTP " + std::to_string(status) + ": " + rest);
}

std::pair<int, std::string> WsClient::try_handshake(const std::string& host, std::uint16_t port,
                                                    std::vector<std::pair<std::string, std::string>> headers) {
  auto deadline = Clock::now() + std::chrono::seconds(10);
  auto fd = connect_stream(host, port, deadline);
  if (send_all(fd.get(), handshake_request(host, port, headers), deadline) != SendResult::ok)
    throw std::runtime_error("websocket handshake: cannot send");
  std::string rest;
  return read_handshake(fd.get(), rest, deadline);
}

std::string ws_client_frame(std::uint8_t opcode, std::string_view payload) {
  std::string frame;
  frame += static_cast<char>(0x80 | opcode);
  const std::size_t n = payload.size();
  if (n < 126) {
    frame += static_cast<char>(0x80 | n);
  } else if (n < 65536) {
    frame += static_cast<char>(0x80 | 126);
    frame += static_cast<char>((n >> 8) & 0xff);
    frame += static_cast<char>(n & 0xff);
  } else {
    frame += static_cast<char>(0x80 | 127);
    for (int shift = 56; shift >= 0; shift -= 8) frame += static_cast<char>((n >> shift) & 0xff);
  }
  static thread_local std::mt19937 rng{std::random_device{}()};
  char mask[4];
  for (auto& m : mask) m = static_cast<char>(rng() & 0xff);
  frame.append(mask, 4);
  for (std::size_t i = 0; i < n; ++i) frame += static_cast<char>(payload[i] ^ mask[i % 4]);
  return frame;
}

void WsClient::send_frame(std::uint8_t opcode, const std::string& payload) {
  if (send_all(fd_.get(), ws_client_frame(opcode, payload), Clock::now() + std::chrono::seconds(10)) !=
      SendResult::ok)
    throw std::runtime_error("websocket: cannot send a frame (connection closed?)");
}

void WsClient::send_text(const std::string& text) { send_frame(0x1, text); }

bool WsClient::fill(std::size_t need, Clock::time_point deadline) {
  char buf[65536];
  while (buffer_.size() < need) {
    auto n = recv_some(fd_.get(), buf, sizeof buf, deadline);
    if (!n) return false;  // timed out
    if (*n == 0) throw std::runtime_error("websocket: connection closed by the server");
    buffer_.append(buf, *n);
  }
  return true;
}

std::optional<std::string> WsClient::read_message(Clock::time_point deadline) {
  std::string message;
  for (;;) {
    if (!fill(2, deadline)) return std::nullopt;
    const auto b0 = static_cast<std::uint8_t>(buffer_[0]);
    const auto b1 = static_cast<std::uint8_t>(buffer_[1]);
    std::size_t header = 2;
    std::uint64_t length = b1 & 0x7f;
    if (length == 126) {
      if (!fill(4, deadline)) return std::nullopt;
      length = (static_cast<std::uint8_t>(buffer_[2]) << 8) | static_cast<std::uint8_t>(buffer_[3]);
      header = 4;
    } else if (length == 127) {
      if (!fill(10, deadline)) return std::nullopt;
      length = 0;
      for (int i = 2; i < 10; ++i) length = (length << 8) | static_cast<std::uint8_t>(buffer_[static_cast<std::size_t>(i)]);
      header = 10;
    }
    if (!fill(header + length, deadline)) return std::nullopt;
    std::string payload = buffer_.substr(header, length);
    buffer_.erase(0, header + length);
    const int opcode = b0 & 0x0f;
    if (opcode == 0x8) {  // close
      close_code_ = payload.size() >= 2 ? (static_cast<std::uint8_t>(payload[0]) << 8) | static_cast<std::uint8_t>(payload[1]) : 1005;
      close_reason_ = payload.size() > 2 ? payload.substr(2) : "";
      throw std::runtime_error("websocket closed by the server (" + std::to_string(close_code_) + " " + close_reason_ + ")");
    }
    if (opcode == 0x9) {  // ping
      send_frame(0xA, payload);
      continue;
    }
    if (opcode == 0xA) continue;  // pong
    message += payload;
    if (b0 & 0x80) return message;
  }
}

std::optional<std::string> WsClient::receive(std::chrono::milliseconds timeout) {
  return read_message(Clock::now() + timeout);
}

json::object WsClient::call(const std::string& method, const json::value& params, std::chrono::milliseconds timeout) {
  const auto id = next_id_++;
  send_text(json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}));
  auto deadline = Clock::now() + timeout;
  for (;;) {
    auto text = read_message(deadline);
    if (!text) throw std::runtime_error("no answer to " + method + " within " + std::to_string(timeout.count()) + " ms");
    auto message = json::parse(*text).as_object();
    if (auto* got = message.if_contains("id"); got && got->is_int64() && got->as_int64() == id) return message;
    notifications_.push_back(std::move(message));
  }
}

std::optional<json::object> WsClient::next_notification(std::chrono::milliseconds timeout) {
  if (!notifications_.empty()) {
    auto n = std::move(notifications_.front());
    notifications_.pop_front();
    return n;
  }
  auto text = read_message(Clock::now() + timeout);
  if (!text) return std::nullopt;
  return json::parse(*text).as_object();
}

}  // namespace agentry::test
