#pragma once
// One keep-alive HTTP/1.1 connection to the daemon that sends a request and reads its
// response at a time, as a dashboard or a script does: what the load drivers time (the
// tests' HttpClient opens a connection per request, which would be half the time here).

#include "support/socket_io.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace agentry::bench {

class KeepAliveConnection {
 public:
  /// Connects (TCP_NODELAY). `bearer_token`, when not empty, goes with every request.
  KeepAliveConnection(std::string host, std::uint16_t port, std::string bearer_token = {});

  /// Sends the request and returns the status; the body goes to `body`. Throws
  /// std::runtime_error when the daemon closes the connection or takes over 10 s.
  int request(std::string_view method, std::string_view target, std::string_view payload, std::string& body);
  int get(std::string_view target, std::string& body) { return request("GET", target, {}, body); }
  int post(std::string_view target, std::string_view payload, std::string& body) {
    return request("POST", target, payload, body);
  }

 private:
  std::size_t receive(char* buf, std::size_t size, test::Clock::time_point deadline);

  std::string host_;
  std::uint16_t port_;
  std::string head_extra_;  // "Host: ...\r\n" and the Authorization line
  test::UniqueFd fd_;
};

}  // namespace agentry::bench
