#include "websocket.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <stdexcept>

#include "sha1.hpp"

namespace agentry::codex::ws {

namespace {

constexpr std::size_t kMaxMessage = 64u * 1024 * 1024;  // codex allows 16 MiB per frame
constexpr std::size_t kMaxResponseHead = 16 * 1024;

std::array<uint8_t, 4> random_mask() {
  thread_local std::mt19937 rng{std::random_device{}()};
  const uint32_t n = rng();
  return {static_cast<uint8_t>(n), static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n >> 16),
          static_cast<uint8_t>(n >> 24)};
}

std::string random_key() {
  std::random_device device;
  std::string bytes(16, '\0');
  for (char& c : bytes) c = static_cast<char>(device() & 0xFF);
  return base64(bytes);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The value of header `name` (lower case) in an HTTP response head, or "".
std::string header_value(const std::string& head, const std::string& name) {
  std::size_t pos = head.find("\r\n");
  while (pos != std::string::npos && pos + 2 < head.size()) {
    const std::size_t start = pos + 2;
    const std::size_t end = head.find("\r\n", start);
    const std::string line = head.substr(start, end - start);
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos && lower(line.substr(0, colon)) == name) {
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      value.erase(value.find_last_not_of(" \t") + 1);
      return value;
    }
    pos = end;
  }
  return {};
}

void wait_readable(int fd, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw std::runtime_error("the WebSocket handshake timed out");
    pollfd p{fd, POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n > 0) return;
    if (n < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
  }
}

}  // namespace

std::string encode_frame(uint8_t opcode, std::string_view payload, std::array<uint8_t, 4> mask) {
  std::string out;
  out.reserve(payload.size() + 14);
  out.push_back(static_cast<char>(0x80 | opcode));
  const uint64_t size = payload.size();
  if (size < 126) {
    out.push_back(static_cast<char>(0x80 | size));
  } else if (size <= 0xFFFF) {
    out.push_back(static_cast<char>(0x80 | 126));
    out.push_back(static_cast<char>(size >> 8));
    out.push_back(static_cast<char>(size & 0xFF));
  } else {
    out.push_back(static_cast<char>(0x80 | 127));
    for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((size >> (8 * i)) & 0xFF));
  }
  for (uint8_t b : mask) out.push_back(static_cast<char>(b));
  for (std::size_t i = 0; i < payload.size(); ++i)
    out.push_back(static_cast<char>(static_cast<uint8_t>(payload[i]) ^ mask[i % 4]));
  return out;
}

std::optional<Frame> take_frame(std::string& buffer, std::size_t max_payload) {
  if (buffer.size() < 2) return std::nullopt;
  const auto byte = [&](std::size_t i) { return static_cast<uint8_t>(buffer[i]); };
  if ((byte(0) & 0x70) != 0) throw std::runtime_error("WebSocket frame with reserved bits set");
  Frame frame;
  frame.fin = (byte(0) & 0x80) != 0;
  frame.opcode = byte(0) & 0x0F;
  const bool masked = (byte(1) & 0x80) != 0;  // servers must not mask, but tolerate it
  uint64_t size = byte(1) & 0x7F;
  std::size_t header = 2;
  if (size == 126) {
    if (buffer.size() < 4) return std::nullopt;
    size = (uint64_t{byte(2)} << 8) | byte(3);
    header = 4;
  } else if (size == 127) {
    if (buffer.size() < 10) return std::nullopt;
    size = 0;
    for (std::size_t i = 2; i < 10; ++i) size = (size << 8) | byte(i);
    header = 10;
  }
  if ((frame.opcode & 0x8) != 0 && (size > 125 || !frame.fin))
    throw std::runtime_error("WebSocket control frame too long or fragmented");
  if (size > max_payload) throw std::runtime_error("WebSocket frame over " + std::to_string(max_payload) + " bytes");
  std::array<uint8_t, 4> mask{};
  if (masked) {
    if (buffer.size() < header + 4) return std::nullopt;
    for (std::size_t i = 0; i < 4; ++i) mask[i] = byte(header + i);
    header += 4;
  }
  if (buffer.size() < header + size) return std::nullopt;
  frame.payload = buffer.substr(header, size);
  if (masked)
    for (std::size_t i = 0; i < frame.payload.size(); ++i)
      frame.payload[i] = static_cast<char>(static_cast<uint8_t>(frame.payload[i]) ^ mask[i % 4]);
  buffer.erase(0, header + size);
  return frame;
}

std::string accept_key(std::string_view key) {
  const std::array<uint8_t, 20> digest = sha1(std::string(key) + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11");
  return base64(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

Client::Client(plugin_common::Fd socket, const Handshake& handshake, int timeout_ms) : socket_(std::move(socket)) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  const std::string key = random_key();
  std::string request = "GET " + handshake.path + " HTTP/1.1\r\nHost: " + handshake.host +
                        "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
                        "\r\nSec-WebSocket-Version: 13\r\n";
  if (!handshake.bearer_token.empty()) request += "Authorization: Bearer " + handshake.bearer_token + "\r\n";
  request += "\r\n";
  write_all(request);

  std::string head;
  std::size_t end = std::string::npos;
  while (end == std::string::npos) {
    wait_readable(socket_.get(), deadline);
    char chunk[4096];
    const ssize_t n = ::recv(socket_.get(), chunk, sizeof chunk, 0);
    if (n == 0) throw std::runtime_error("the server closed the connection during the WebSocket handshake");
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("WebSocket handshake: ") + std::strerror(errno));
    }
    head.append(chunk, static_cast<std::size_t>(n));
    end = head.find("\r\n\r\n");
    if (end == std::string::npos && head.size() > kMaxResponseHead)
      throw std::runtime_error("WebSocket handshake: response head too long");
  }
  buffer_ = head.substr(end + 4);  // frames the server sent right after its 101
  head.resize(end + 2);
  const std::string status_line = head.substr(0, head.find("\r\n"));
  if (status_line.rfind("HTTP/1.1 101", 0) != 0)
    throw std::runtime_error("WebSocket handshake refused: " + status_line);
  if (lower(header_value(head, "upgrade")) != "websocket")
    throw std::runtime_error("WebSocket handshake: the response does not upgrade to websocket");
  if (header_value(head, "sec-websocket-accept") != accept_key(key))
    throw std::runtime_error("WebSocket handshake: wrong Sec-WebSocket-Accept");
}

ReadResult Client::read_some() {
  ReadResult out;
  char chunk[64 * 1024];
  const ssize_t n = ::recv(socket_.get(), chunk, sizeof chunk, MSG_DONTWAIT);
  if (n > 0)
    buffer_.append(chunk, static_cast<std::size_t>(n));
  else if (n == 0)
    out.closed = true, out.close_reason = "the server closed the connection";
  else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    out.closed = true, out.close_reason = std::string("connection lost: ") + std::strerror(errno);

  while (std::optional<Frame> frame = take_frame(buffer_, kMaxMessage)) {
    switch (frame->opcode) {
      case ping:
        if (!close_sent_) send_frame(pong, frame->payload);
        break;
      case pong:
        break;
      case Opcode::close: {
        std::string code;
        if (frame->payload.size() >= 2)
          code =
              " (" +
              std::to_string((static_cast<uint8_t>(frame->payload[0]) << 8) | static_cast<uint8_t>(frame->payload[1])) +
              ")";
        if (!close_sent_) {
          close_sent_ = true;
          try {
            send_frame(Opcode::close, frame->payload.substr(0, 2));  // echo the code (RFC 6455 §5.5.1)
          } catch (const std::exception&) {
          }
        }
        out.closed = true;
        out.close_reason = "the server closed the WebSocket" + code;
        return out;
      }
      case text:
      case binary:
        if (in_message_) throw std::runtime_error("WebSocket: a new message inside a fragmented one");
        if (frame->fin) {
          out.messages.push_back(std::move(frame->payload));
        } else {
          in_message_ = true;
          message_ = std::move(frame->payload);
        }
        break;
      case continuation:
        if (!in_message_) throw std::runtime_error("WebSocket: a continuation frame without a message");
        if (message_.size() + frame->payload.size() > kMaxMessage)
          throw std::runtime_error("WebSocket: message too long");
        message_ += frame->payload;
        if (frame->fin) {
          in_message_ = false;
          out.messages.push_back(std::move(message_));
          message_.clear();
        }
        break;
      default:
        throw std::runtime_error("WebSocket: unknown opcode " + std::to_string(frame->opcode));
    }
  }
  return out;
}

void Client::send_text(std::string_view message) { send_frame(text, message); }

void Client::close() noexcept {
  if (socket_.get() < 0) return;
  if (!close_sent_) {
    close_sent_ = true;
    try {
      send_frame(Opcode::close, std::string("\x03\xE8", 2));  // 1000: normal closure
    } catch (const std::exception&) {
    }
  }
  ::shutdown(socket_.get(), SHUT_RDWR);
}

void Client::send_frame(uint8_t opcode, std::string_view payload) {
  write_all(encode_frame(opcode, payload, random_mask()));
}

void Client::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(socket_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("WebSocket send: ") + std::strerror(errno));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace agentry::codex::ws
