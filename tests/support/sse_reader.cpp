// SseReader (declared in http_client.hpp): a streaming GET parsed as text/event-stream.
#include <algorithm>
#include <array>
#include <stdexcept>

#include <sys/socket.h>

#include "support/http_client.hpp"

namespace agentry::test {

namespace {

std::string quote(std::string_view text) {
  constexpr std::size_t max = 2000;
  return text.size() <= max ? std::string(text) : std::string(text.substr(0, max)) + "...";
}

}  // namespace

SseReader::SseReader(std::string host, std::uint16_t port, std::string target,
                     const Headers& headers, std::chrono::milliseconds open_timeout)
    : description_("GET " + target) {
  const auto deadline = Clock::now() + open_timeout;
  try {
    fd_ = connect_stream(host, port, deadline);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(e.what()) + " (for SSE " + description_ + ")");
  }
  auto has = [&](std::string_view name) {
    for (const auto& h : headers) {
      if (to_lower(h.first) == name) return true;
    }
    return false;
  };
  std::string req = description_ + " HTTP/1.1\r\n";
  if (!has("host")) req += "Host: " + host_header(host, port) + "\r\n";
  if (!has("accept")) req += "Accept: text/event-stream\r\n";
  if (!has("connection")) req += "Connection: close\r\n";
  req += "Cache-Control: no-cache\r\n";
  for (const auto& [name, value] : headers) req += name + ": " + value + "\r\n";
  req += "\r\n";
  if (send_all(fd_.get(), req, deadline) == SendResult::timed_out) {
    throw std::runtime_error("timed out after " + std::to_string(open_timeout.count()) +
                             " ms sending SSE request " + description_);
  }

  std::string raw;
  std::array<char, 8192> buf{};
  std::optional<std::size_t> head_end;
  while (!(head_end = find_head_end(raw))) {
    const auto n = recv_some(fd_.get(), buf.data(), buf.size(), deadline);
    if (!n) {
      throw std::runtime_error("timed out after " + std::to_string(open_timeout.count()) +
                               " ms waiting for the response head to SSE " + description_ +
                               (raw.empty() ? std::string() : " (received: " + quote(raw) + ")"));
    }
    if (*n == 0) {
      throw std::runtime_error("connection closed before a response head to SSE " + description_ +
                               (raw.empty() ? std::string() : " (received: " + quote(raw) + ")"));
    }
    raw.append(buf.data(), *n);
  }
  head_ = parse_response_head(std::string_view(raw).substr(0, *head_end));
  decoder_ = BodyDecoder::for_response(head_, "GET");
  std::string decoded;
  decoder_.feed(std::string_view(raw).substr(*head_end), decoded);

  const auto type = head_.headers.find("content-type");
  const bool is_stream = type != head_.headers.end() &&
                         to_lower(type->second).starts_with("text/event-stream");
  if (head_.status != 200 || !is_stream) {
    // Collect a bounded error body for the message (non-stream responses end quickly).
    const auto body_deadline = std::min(deadline, Clock::now() + std::chrono::milliseconds(2000));
    while (!decoder_.done() && decoded.size() < 4096) {
      const auto n = recv_some(fd_.get(), buf.data(), buf.size(), body_deadline);
      if (!n || *n == 0) break;
      decoder_.feed(std::string_view(buf.data(), *n), decoded);
    }
    throw std::runtime_error("SSE " + description_ + " answered " + std::to_string(head_.status) +
                             " " + head_.reason + " with content-type \"" +
                             (type == head_.headers.end() ? std::string() : type->second) +
                             "\" (expected 200 text/event-stream); body: " + quote(decoded));
  }
  parser_.feed(decoded);
  if (decoder_.done()) ended_ = true;
}

bool SseReader::pump(Clock::time_point deadline) {
  std::array<char, 8192> buf{};
  const auto n = recv_some(fd_.get(), buf.data(), buf.size(), deadline);
  if (!n) return false;
  if (*n == 0) {
    ended_ = true;  // a cut-short chunked body still ends the stream; events so far stand
    return true;
  }
  std::string decoded;
  decoder_.feed(std::string_view(buf.data(), *n), decoded);
  parser_.feed(decoded);
  if (decoder_.done()) ended_ = true;
  return true;
}

std::optional<SseEvent> SseReader::next(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (auto e = parser_.pop()) return e;
    if (ended_ || !fd_) return std::nullopt;
    if (!pump(deadline)) return std::nullopt;
  }
}

SseEvent SseReader::expect_next(std::chrono::milliseconds timeout) {
  if (auto e = next(timeout)) return std::move(*e);
  throw std::runtime_error("no SSE event within " + std::to_string(timeout.count()) + " ms on " +
                           description_ + (ended_ ? " (the server ended the stream)" : "") +
                           " (last event id \"" + last_event_id() + "\", " +
                           std::to_string(heartbeats()) + " heartbeats)");
}

bool SseReader::wait_for_end(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!ended_ && fd_) {
    if (!pump(deadline)) return false;
    while (parser_.pop()) {
    }
  }
  return ended_;
}

void SseReader::close() {
  if (fd_) ::shutdown(fd_.get(), SHUT_RDWR);
  fd_.reset();
}

}  // namespace agentry::test
