#pragma once
// A slow link between two processes on loopback: a TCP forwarder on 127.0.0.1:0 whose
// bytes from the target back to the client arrive `delay` late (the requests go through
// at once). For what a member sees of another across a slow or loaded network.

#include "support/socket_io.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace agentry::test {

class SlowLink {
 public:
  explicit SlowLink(std::chrono::milliseconds delay);
  /// Stops forwarding: every connection is closed.
  ~SlowLink();
  SlowLink(const SlowLink&) = delete;
  SlowLink& operator=(const SlowLink&) = delete;

  /// "http://127.0.0.1:<port>", the link's end to give a client.
  [[nodiscard]] std::string url() const;
  /// Where connections go from now on (127.0.0.1:port); until set, they are refused.
  void set_target(std::uint16_t port) { target_ = port; }

 private:
  void accept_loop();
  void forward(UniqueFd client);

  const std::chrono::milliseconds delay_;
  UniqueFd listener_;
  std::uint16_t port_ = 0;
  std::atomic<std::uint16_t> target_{0};
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::vector<std::thread> connections_;
  std::thread acceptor_;
};

}  // namespace agentry::test
