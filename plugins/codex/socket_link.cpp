// A codex app-server that someone else runs: WebSocket over TCP (--listen ws://) or over
// a Unix socket (--listen unix://, the same HTTP Upgrade handshake), on the runtime's
// WebSocket client. One JSON-RPC message per text message.
#include <chrono>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "agentry/plugin_common/runtime/websocket.hpp"
#include "link.hpp"

namespace agentry::codex {

namespace rt = agentry::plugin_common::runtime;

namespace {

// How long the server may take to answer our close frame; then the socket just goes.
constexpr std::chrono::milliseconds kCloseWait{2000};

class SocketLink final : public Link, public std::enable_shared_from_this<SocketLink> {
 public:
  SocketLink(const boost::asio::any_io_executor& io, std::string name, LinkHandlers handlers)
      : io_(io), name_(std::move(name)), handlers_(std::move(handlers)), close_timer_(io) {}

  void connect(rt::WebSocketTarget target, int timeout_ms) {
    const std::weak_ptr<SocketLink> weak = weak_from_this();
    rt::WebSocketHandlers client_handlers;
    client_handlers.ready = [weak](std::string error) {
      if (auto self = weak.lock()) self->on_ready(std::move(error));
    };
    client_handlers.message = [weak](std::string text) {
      if (auto self = weak.lock(); self && self->handlers_.message) self->handlers_.message(std::move(text));
    };
    client_handlers.closed = [weak](std::string reason) {
      if (auto self = weak.lock())
        self->ended("lost the connection to codex app-server at " + self->name_ + (reason.empty() ? "" : ": " + reason));
    };
    client_ = rt::connect_websocket(io_, std::move(target), std::chrono::milliseconds(timeout_ms),
                                    std::move(client_handlers));
  }

  void send(std::string message) override {
    if (!closing_ && !ended_) client_->send(std::move(message));
  }

  void close() override {
    if (closing_ || ended_) return;
    closing_ = true;
    if (!upgraded_) {  // nothing to say goodbye to; closed() still comes, and not from inside this call
      client_->forget_handlers();
      client_->close();
      boost::asio::post(io_, [self = shared_from_this()] { self->ended("closed before it was connected"); });
      return;
    }
    client_->close();
    close_timer_.expires_after(kCloseWait);
    close_timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
      auto self = weak.lock();
      if (ec || !self) return;
      self->client_->forget_handlers();
      self->ended("codex app-server did not answer the close frame");
    });
  }

  void abandon() noexcept override {
    handlers_ = {};
    close_timer_.cancel();
    client_->forget_handlers();
    try {
      client_->close();
    } catch (...) {
    }
  }

 private:
  void on_ready(std::string error) {
    if (!error.empty()) return ended("cannot connect to codex app-server at " + name_ + ": " + error);
    upgraded_ = true;
    if (handlers_.ready) handlers_.ready();
  }

  void ended(std::string reason) {
    if (ended_) return;
    ended_ = true;
    close_timer_.cancel();
    if (handlers_.closed) handlers_.closed(std::move(reason));
  }

  boost::asio::any_io_executor io_;
  const std::string name_;  // ws://host:port/path or unix:PATH, for messages
  LinkHandlers handlers_;
  boost::asio::steady_timer close_timer_;
  std::shared_ptr<rt::WebSocketClient> client_;
  bool upgraded_ = false, closing_ = false, ended_ = false;
};

}  // namespace

std::shared_ptr<Link> open_socket(const boost::asio::any_io_executor& io, Transport transport, const SocketTarget& target,
                                  int timeout_ms, LinkHandlers handlers) {
  rt::WebSocketTarget ws{target.host, target.port, {}, target.path, {}, target.bearer_token};
  std::string name;
  if (transport == Transport::uds) {
    ws.unix_path = target.socket_path;
    ws.host_header = target.host;
    name = "unix:" + target.socket_path;
  } else {
    const bool ipv6 = target.host.find(':') != std::string::npos;
    ws.host_header = (ipv6 ? "[" + target.host + "]" : target.host) + ":" + target.port;
    name = "ws://" + ws.host_header + target.path;
  }
  auto link = std::make_shared<SocketLink>(io, std::move(name), std::move(handlers));
  link->connect(std::move(ws), timeout_ms);
  return link;
}

}  // namespace agentry::codex
