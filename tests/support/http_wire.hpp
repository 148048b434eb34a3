// HTTP/1.1 response framing for the test client: head parsing and an incremental body
// decoder (Content-Length, chunked, read-until-close). Pure functions over bytes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::test {

[[nodiscard]] std::string to_lower(std::string_view text);

struct ResponseHead {
  int status = 0;
  std::string reason;
  std::map<std::string, std::string> headers;  // lower-cased names; repeats joined with ", "
};

/// Length of the head including its blank line (CRLFCRLF, or bare LFLF), or nullopt if the
/// head is not complete yet.
[[nodiscard]] std::optional<std::size_t> find_head_end(std::string_view bytes);

/// Parses "HTTP/1.x NNN reason" plus header lines. Throws std::runtime_error if malformed.
[[nodiscard]] ResponseHead parse_response_head(std::string_view head);

/// Decodes a response body as bytes arrive.
class BodyDecoder {
 public:
  enum class Framing { none, content_length, chunked, until_close };

  /// Picks the framing from the status, the request method and the headers (RFC 9112 §6.3).
  [[nodiscard]] static BodyDecoder for_response(const ResponseHead& head, std::string_view method);

  /// Consumes bytes, appending decoded body bytes to `out`. Bytes after the end of the
  /// body are ignored. Throws std::runtime_error on malformed chunked framing.
  void feed(std::string_view in, std::string& out);

  /// True once the body is complete (never for until_close before end of stream).
  [[nodiscard]] bool done() const { return state_ == State::done; }

  /// Call at end of stream. Returns an error description if the body was cut short.
  [[nodiscard]] std::optional<std::string> truncation_error() const;

  [[nodiscard]] Framing framing() const { return framing_; }

 private:
  enum class State { size_line, data, data_end, trailer, raw, done };

  void feed_chunked(std::string& out);

  Framing framing_ = Framing::none;
  State state_ = State::done;
  std::uint64_t remaining_ = 0;  // content_length: body bytes left; chunked: bytes left in chunk
  std::string pending_;          // chunked: bytes not yet decoded
};

}  // namespace agentry::test
