#include "agentry/plugin_common/runtime/websocket.hpp"

#include <deque>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/websocket.hpp>

namespace agentry::plugin_common::runtime {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ws = beast::websocket;
using boost::system::error_code;

namespace {

// One connection over `Socket` (tcp::socket or local::stream_protocol::socket).
template <class Socket>
class Client final : public WebSocketClient, public std::enable_shared_from_this<Client<Socket>> {
 public:
  Client(const asio::any_io_executor& io, WebSocketTarget target, WebSocketHandlers handlers)
      : io_(io), target_(std::move(target)), handlers_(std::move(handlers)), stream_(io), deadline_(io), resolver_(io) {}

  void start(std::chrono::milliseconds timeout) {
    deadline_.expires_after(timeout);
    deadline_.async_wait([self = this->shared_from_this(), timeout](error_code ec) {
      if (!ec && !self->upgraded_) self->fail("timed out after " + std::to_string(timeout.count()) + " ms");
    });
    connect();
  }

  void send(std::string text) override {
    if (closing_ || !upgraded_) return;
    outbox_.push_back(std::move(text));
    if (outbox_.size() == 1) write_next();
  }

  void close() override {
    if (closing_) return;
    closing_ = true;
    if (!upgraded_) return fail("closed before the handshake");
    if (outbox_.empty()) send_close();  // else after the last write
  }

  void forget_handlers() noexcept override { handlers_ = {}; }

 private:
  void connect();

  void upgrade() {
    stream_.set_option(ws::stream_base::decorator([token = target_.bearer_token](ws::request_type& request) {
      if (!token.empty()) request.set(beast::http::field::authorization, "Bearer " + token);
      request.set(beast::http::field::user_agent, "agentry");
    }));
    const std::string host = !target_.host_header.empty() ? target_.host_header
                             : target_.port.empty()       ? target_.host
                                                          : target_.host + ":" + target_.port;
    stream_.async_handshake(response_, host, target_.path, [self = this->shared_from_this()](error_code ec) {
      if (ec == ws::error::upgrade_declined)
        return self->fail("WebSocket handshake refused: HTTP " + std::to_string(self->response_.result_int()) + " " +
                          std::string(self->response_.reason()));
      if (ec) return self->fail("the WebSocket handshake failed: " + ec.message());
      self->upgraded_ = true;
      self->deadline_.cancel();
      self->stream_.text(true);
      if (self->handlers_.ready) self->handlers_.ready("");
      self->read_next();
      if (self->closing_) self->send_close();
    });
  }

  void read_next() {
    stream_.async_read(inbox_, [self = this->shared_from_this()](error_code ec, std::size_t) {
      if (ec) return self->ended(ec == ws::error::closed ? "closed by the server (" +
                                                                std::to_string(self->stream_.reason().code) + ")"
                                                          : ec.message());
      std::string text = beast::buffers_to_string(self->inbox_.data());
      self->inbox_.consume(self->inbox_.size());
      if (self->handlers_.message) self->handlers_.message(std::move(text));
      self->read_next();
    });
  }

  void write_next() {
    stream_.async_write(asio::buffer(outbox_.front()), [self = this->shared_from_this()](error_code ec, std::size_t) {
      self->outbox_.pop_front();
      if (ec) return;  // the read side reports the end
      if (!self->outbox_.empty()) return self->write_next();
      if (self->closing_) self->send_close();
    });
  }

  void send_close() {
    if (close_sent_) return;
    close_sent_ = true;
    stream_.async_close(ws::close_code::normal, [self = this->shared_from_this()](error_code) {});
  }

  void fail(std::string why) {
    if (reported_ready_failure_ || upgraded_) return;
    reported_ready_failure_ = true;
    error_code ignored;
    beast::get_lowest_layer(stream_).close(ignored);
    if (handlers_.ready) handlers_.ready(std::move(why));
  }

  void ended(std::string reason) {
    if (ended_) return;
    ended_ = true;
    if (handlers_.closed) handlers_.closed(std::move(reason));
  }

  asio::any_io_executor io_;
  WebSocketTarget target_;
  WebSocketHandlers handlers_;
  ws::stream<Socket> stream_;
  asio::steady_timer deadline_;
  asio::ip::tcp::resolver resolver_;
  ws::response_type response_;
  beast::flat_buffer inbox_;
  std::deque<std::string> outbox_;
  bool upgraded_ = false, closing_ = false, close_sent_ = false, ended_ = false, reported_ready_failure_ = false;
};

template <>
void Client<asio::ip::tcp::socket>::connect() {
  resolver_.async_resolve(target_.host, target_.port, [self = shared_from_this()](error_code ec, auto endpoints) {
    if (ec) return self->fail("cannot resolve " + self->target_.host + ": " + ec.message());
    asio::async_connect(beast::get_lowest_layer(self->stream_), endpoints, [self](error_code e, const auto&) {
      if (e) return self->fail(e.message());
      self->upgrade();
    });
  });
}

template <>
void Client<asio::local::stream_protocol::socket>::connect() {
  beast::get_lowest_layer(stream_).async_connect(
      asio::local::stream_protocol::endpoint(target_.unix_path), [self = shared_from_this()](error_code ec) {
        if (ec) return self->fail(ec.message());
        self->upgrade();
      });
}

}  // namespace

std::shared_ptr<WebSocketClient> connect_websocket(const asio::any_io_executor& io, WebSocketTarget target,
                                                   std::chrono::milliseconds timeout, WebSocketHandlers handlers) {
  if (!target.unix_path.empty()) {
    auto client = std::make_shared<Client<asio::local::stream_protocol::socket>>(io, std::move(target), std::move(handlers));
    client->start(timeout);
    return client;
  }
  auto client = std::make_shared<Client<asio::ip::tcp::socket>>(io, std::move(target), std::move(handlers));
  client->start(timeout);
  return client;
}

}  // namespace agentry::plugin_common::runtime
