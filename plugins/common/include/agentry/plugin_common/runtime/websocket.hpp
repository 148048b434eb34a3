// A WebSocket client on an executor (Beast): over TCP or a Unix socket, the HTTP Upgrade
// handshake with a Host, a request target and an optional bearer token, then text
// messages both ways. Every handler runs on the instance's executor (its strand).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>

namespace agentry::plugin_common::runtime {

struct WebSocketTarget {
  std::string host;          // TCP: the host to connect to; also the Host header
  std::string port;          // TCP only
  std::string host_header;   // the Host header; empty: host[:port]
  std::string path = "/";    // the request target
  std::string unix_path;     // non-empty: connect to this Unix socket instead
  std::string bearer_token;  // non-empty: Authorization: Bearer
};

struct WebSocketHandlers {
  std::function<void(std::string error)> ready;      // once: "" connected and upgraded, else why not
  std::function<void(std::string text)> message;     // each whole message
  std::function<void(std::string reason)> closed;    // once, after ready(""): the connection ended
};

class WebSocketClient {
 public:
  virtual ~WebSocketClient() = default;
  // Queues a text message (dropped once closed).
  virtual void send(std::string text) = 0;
  // A close frame, then the connection ends; `closed` follows. Idempotent.
  virtual void close() = 0;
  // No handler runs any more.
  virtual void forget_handlers() noexcept = 0;
};

// Starts connecting; `handlers.ready` says how it went within `timeout`.
std::shared_ptr<WebSocketClient> connect_websocket(const boost::asio::any_io_executor& io, WebSocketTarget target,
                                                   std::chrono::milliseconds timeout, WebSocketHandlers handlers);

}  // namespace agentry::plugin_common::runtime
