// Blocking-style socket helpers for the test-support library: a move-only fd owner,
// loopback and Unix socket connect, and send/receive with deadlines. Plain POSIX; no Asio.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace agentry::test {

using Clock = std::chrono::steady_clock;

/// Owns one file descriptor; closes it on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  [[nodiscard]] int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

/// "what: strerror(err)".
[[nodiscard]] std::string errno_message(std::string_view what, int err);

/// Milliseconds from now until `deadline`, clamped to [0, INT_MAX].
[[nodiscard]] int remaining_ms(Clock::time_point deadline);

/// A TCP port free right now on 127.0.0.1, for a server that must be told its port (it
/// may be taken again before the server binds it: retry when that matters).
[[nodiscard]] int free_loopback_port();

/// Connects a non-blocking, close-on-exec TCP socket to host:port. Throws std::runtime_error
/// ("cannot connect to 127.0.0.1:8080: Connection refused") or on timeout.
[[nodiscard]] UniqueFd connect_tcp(const std::string& host, std::uint16_t port,
                                   Clock::time_point deadline);
/// The same with SO_RCVBUF set to `rcvbuf` bytes before connecting (0: the system's
/// default): a small receive window makes a slow reader push back on the server early.
[[nodiscard]] UniqueFd connect_tcp(const std::string& host, std::uint16_t port,
                                   Clock::time_point deadline, int rcvbuf);

/// Connects a non-blocking, close-on-exec socket to the Unix socket at `path`. Throws
/// std::runtime_error ("cannot connect to unix:///tmp/x.sock: No such file or directory").
[[nodiscard]] UniqueFd connect_unix(const std::string& path, Clock::time_point deadline);

/// The test clients' peers: `host` is a host name or address (TCP, `port`), or the
/// absolute path of a Unix socket (`port` unused): connect_tcp or connect_unix.
[[nodiscard]] UniqueFd connect_stream(const std::string& host, std::uint16_t port, Clock::time_point deadline);
/// The Host header for such a peer: "host:port", or "localhost" for a Unix socket.
[[nodiscard]] std::string host_header(const std::string& host, std::uint16_t port);

enum class SendResult { ok, peer_closed, timed_out };

/// Sends every byte. `peer_closed` means the peer reset or shut the connection (EPIPE,
/// ECONNRESET) — the caller may still read what the peer sent before closing. Never raises SIGPIPE.
[[nodiscard]] SendResult send_all(int fd, std::string_view data, Clock::time_point deadline);

/// Waits until readable, then reads up to `size` bytes from a non-blocking socket or pipe. Returns the byte count, 0 at end of
/// stream (a reset counts as end of stream), or nullopt if the deadline passes first.
/// Throws std::runtime_error on other socket errors.
[[nodiscard]] std::optional<std::size_t> recv_some(int fd, char* buf, std::size_t size,
                                                   Clock::time_point deadline);

}  // namespace agentry::test
