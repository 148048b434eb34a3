// A small blocking HTTP/1.1 client and SSE reader for integration tests that drive the real
// daemon over loopback. One connection per request (`Connection: close`); plain POSIX sockets.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/value.hpp>

#include "support/http_wire.hpp"
#include "support/socket_io.hpp"
#include "support/sse_parser.hpp"

namespace agentry::test {

/// Request headers, sent in order. A header named here replaces the client's default of the
/// same name (Host, Connection, Content-Type, Content-Length, Accept).
using Headers = std::vector<std::pair<std::string, std::string>>;

inline constexpr std::chrono::milliseconds default_http_timeout{10'000};

struct HttpResponse {
  int status = 0;
  std::string reason;
  std::map<std::string, std::string> headers;  // lower-cased names
  std::string body;

  /// Parses the body as JSON; throws std::runtime_error quoting the status and the body.
  [[nodiscard]] boost::json::value json() const;
  /// The header's value, or "" if absent. `name` is matched case-insensitively.
  [[nodiscard]] std::string header(std::string_view name) const;
  [[nodiscard]] bool has_header(std::string_view name) const;
};

class SseReader;

class HttpClient {
 public:
  /// `host`: a host name or address, or a Unix socket's absolute path (then `port` is
  /// unused and requests name "localhost" as their Host).
  HttpClient(std::string host, std::uint16_t port);

  /// Overall deadline for one request: connect, send, and read the whole response.
  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }
  [[nodiscard]] std::chrono::milliseconds timeout() const { return timeout_; }
  /// Headers added to every request (e.g. Authorization); per-request headers win.
  void set_default_header(std::string name, std::string value);

  [[nodiscard]] const std::string& host() const { return host_; }
  [[nodiscard]] std::uint16_t port() const { return port_; }

  HttpResponse get(std::string_view target, const Headers& headers = {});
  HttpResponse post(std::string_view target, std::string body, const Headers& headers = {},
                    std::string_view content_type = "application/json");
  HttpResponse post_json(std::string_view target, const boost::json::value& body,
                         const Headers& headers = {});
  HttpResponse put(std::string_view target, std::string body, const Headers& headers = {},
                   std::string_view content_type = "application/json");
  HttpResponse put_json(std::string_view target, const boost::json::value& body,
                        const Headers& headers = {});
  HttpResponse patch(std::string_view target, std::string body, const Headers& headers = {},
                     std::string_view content_type = "application/json");
  HttpResponse patch_json(std::string_view target, const boost::json::value& body,
                          const Headers& headers = {});
  HttpResponse del(std::string_view target, const Headers& headers = {});

  /// Sends one request and reads the complete response (Content-Length, chunked, or until
  /// close). Content-Length is sent when the body is non-empty or the method is POST/PUT/PATCH;
  /// a non-empty body is sent as application/json unless `headers` name a Content-Type.
  /// Throws std::runtime_error ("timed out after 10000 ms waiting for response to GET
  /// /api/runs", "cannot connect to 127.0.0.1:1: Connection refused", framing errors).
  HttpResponse request(std::string_view method, std::string_view target,
                       std::string_view body = {}, const Headers& headers = {});

  struct RawOptions {
    bool half_close = false;  // shutdown(SHUT_WR) after sending, so the server sees EOF
    bool throw_on_timeout = true;  // false: return what arrived before the deadline
  };
  /// Sends `raw` verbatim and returns every byte the server sends until it closes the
  /// connection (a reset counts as close). For malformed requests, oversized headers, etc.
  std::string raw_exchange(std::string_view raw, RawOptions options);
  std::string raw_exchange(std::string_view raw) { return raw_exchange(raw, RawOptions{}); }

  /// Opens an SSE stream (see SseReader).
  [[nodiscard]] SseReader sse(std::string_view target, const Headers& headers = {}) const;

 private:
  HttpResponse send_with_body(std::string_view method, std::string_view target,
                              std::string_view body, const Headers& headers,
                              std::string_view content_type);

  std::string host_;
  std::uint16_t port_;
  std::chrono::milliseconds timeout_ = default_http_timeout;
  Headers default_headers_;
};

/// A GET on a text/event-stream endpoint, read event by event.
class SseReader {
 public:
  /// Connects, sends the GET (with `Accept: text/event-stream` and `headers`, e.g.
  /// {"Last-Event-ID", "42"}), and reads the response head. Throws if the status is not 200 or
  /// the content type is not text/event-stream, quoting the status and the body.
  SseReader(std::string host, std::uint16_t port, std::string target, const Headers& headers = {},
            std::chrono::milliseconds open_timeout = default_http_timeout);

  SseReader(SseReader&&) noexcept = default;
  SseReader& operator=(SseReader&&) noexcept = default;
  SseReader(const SseReader&) = delete;
  SseReader& operator=(const SseReader&) = delete;
  ~SseReader() = default;

  [[nodiscard]] int status() const { return head_.status; }
  [[nodiscard]] const std::map<std::string, std::string>& headers() const { return head_.headers; }

  /// The next event, or nullopt if none completes within `timeout` or the stream has ended
  /// (check ended()). Throws on malformed chunked framing.
  [[nodiscard]] std::optional<SseEvent> next(std::chrono::milliseconds timeout);
  /// Like next(), but throws "no SSE event within 2000 ms on GET /api/runs/x/events (...)".
  [[nodiscard]] SseEvent expect_next(std::chrono::milliseconds timeout);

  /// Comment lines (": keep-alive") received so far.
  [[nodiscard]] std::size_t heartbeats() const { return parser_.comments(); }
  /// The last `id:` seen, suitable for a reconnect's Last-Event-ID.
  [[nodiscard]] const std::string& last_event_id() const { return parser_.last_event_id(); }
  /// True once the server closed the stream (or ended its chunked body); queued events may
  /// still be returned by next().
  [[nodiscard]] bool ended() const { return ended_; }
  /// Waits up to `timeout` for the server to close the stream, discarding events.
  [[nodiscard]] bool wait_for_end(std::chrono::milliseconds timeout);
  void close();

 private:
  // Reads once (until `deadline`) and feeds the parser. Returns false on timeout.
  bool pump(Clock::time_point deadline);

  std::string description_;  // "GET /api/..." for messages
  UniqueFd fd_;
  ResponseHead head_;
  BodyDecoder decoder_;
  SseParser parser_;
  bool ended_ = false;
};

}  // namespace agentry::test
