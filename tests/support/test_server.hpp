// A scripted HTTP-ish server on 127.0.0.1:0 for the support library's self tests: one thread,
// one connection at a time, and a handler that decides what bytes to send and when.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "support/socket_io.hpp"

namespace agentry::test {

struct ReceivedRequest {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // lower-cased names
  std::string body;                            // Content-Length bytes
};

class TestServer;

class ServerConnection {
 public:
  ServerConnection(int fd, TestServer& server) : fd_(fd), server_(server) {}

  /// Reads one request head and its Content-Length body; nullopt on EOF, timeout or stop.
  std::optional<ReceivedRequest> read_request(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// Reads until the peer half-closes (or timeout/stop); returns the bytes.
  std::string read_until_eof(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// Sends bytes; errors (peer gone) are ignored.
  void send(std::string_view bytes);
  /// Sleeps, waking early if the server stops.
  void pause(std::chrono::milliseconds duration);
  /// Waits until the peer closes the connection (or the server stops / timeout).
  bool wait_for_peer_close(std::chrono::milliseconds timeout = std::chrono::seconds(30));

 private:
  // Waits for fd readability; false on stop/timeout.
  bool wait_readable(Clock::time_point deadline);

  int fd_;
  TestServer& server_;
  std::string buffered_;
};

class TestServer {
 public:
  using Handler = std::function<void(ServerConnection&)>;

  /// Listens on 127.0.0.1:0 and serves every connection with `handler`, one after another.
  explicit TestServer(Handler handler);
  ~TestServer();  // stops the thread, interrupting a handler blocked in pause()/waits
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  /// Requests read through ServerConnection::read_request so far.
  [[nodiscard]] std::vector<ReceivedRequest> requests() const;
  /// Connections accepted so far.
  [[nodiscard]] int connections() const { return connections_.load(); }

 private:
  void run();

  Handler handler_;
  UniqueFd listen_fd_;
  UniqueFd wake_read_;
  UniqueFd wake_write_;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  mutable std::mutex mutex_;
  std::vector<ReceivedRequest> requests_;
  std::thread thread_;

  friend class ServerConnection;
};

}  // namespace agentry::test
