// The WebSocket JSON-RPC client: the one CLI translation unit that compiles Beast and
// Asio headers (their out-of-line code comes from agentry_api_server's boost_impl.cpp).
// It reaches the daemon over TCP (ws://host:port/) or its Unix socket
// (unix:///path.sock) through one protocol-generic stream, so everything after
// connecting is the same code. One I/O thread owns the socket; callers post writes to
// it and wait, bounded, for the answer with their request id. Attachment transfers are in
// connected_attachment_transfer.cpp, on the stream notifications this file routes.

#include "cli/connected_client.hpp"

#include "cli/listen_url.hpp"
#include "cli/rpc_protocol.hpp"

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json/serialize.hpp>

#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace agentry::cli {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace json = boost::json;
using net::ip::tcp;
using core::ErrorCode;
/// TCP or a Unix socket, chosen by the URL at run time.
using Protocol = net::generic::stream_protocol;

namespace {

std::string seconds(std::chrono::milliseconds ms) {
  auto s = ms.count() / 1000;
  return s > 0 ? std::to_string(s) + " s" : std::to_string(ms.count()) + " ms";
}

struct Pending {
  std::string method;
  std::promise<RpcResponse> promise;
  std::optional<StreamHandlers> subscriber;  // events.subscribe: installed with the answer
};

struct ConnectOutcome {
  beast::error_code ec;
  std::string stage;  // "resolve" (TCP only), "connect", "handshake"
};

}  // namespace

struct ConnectedClient::Impl {
  Impl(ConnectOptions o, ListenUrl u) : options(std::move(o)), url(std::move(u)) {}

  ConnectOptions options;
  ListenUrl url;
  net::io_context ioc;
  net::executor_work_guard<net::io_context::executor_type> work{ioc.get_executor()};
  tcp::resolver resolver{ioc};
  std::vector<Protocol::endpoint> endpoints;  // what the connect tries, in order
  websocket::stream<beast::basic_stream<Protocol>> ws{ioc};
  websocket::response_type handshake_response;
  beast::flat_buffer buffer;
  std::deque<std::string> outbox;  // I/O thread only
  bool writing = false;            // I/O thread only
  std::thread thread;

  std::mutex mutex;  // pending, subscriptions, lost, shutting_down, reading
  std::condition_variable reading_ended;
  std::map<std::int64_t, std::shared_ptr<Pending>> pending;
  std::map<std::string, StreamHandlers> subscriptions;
  std::int64_t next_id = 1;
  std::optional<std::string> lost;  // why the connection is gone
  bool shutting_down = false;
  bool reading = false;
  std::mutex dispatch_mutex;  // held while a handler runs; unsubscribe() waits for it
  // Byte stream notifications (stream.*) by stream id, for the transfer waiting on them.
  std::map<std::string, std::deque<RpcNotification>> stream_inbox;  // under mutex
  std::condition_variable stream_arrived;

  std::string where() const { return options.url; }

  // --- connecting (I/O thread) ---

  void start_connect(std::shared_ptr<std::promise<ConnectOutcome>> done) {
    if (url.is_unix()) {
      endpoints = {Protocol::endpoint(net::local::stream_protocol::endpoint(url.socket_path))};
      connect(std::move(done));
      return;
    }
    resolver.async_resolve(url.host, std::to_string(url.port),
                           [this, done](beast::error_code ec, tcp::resolver::results_type results) {
                             if (ec) return done->set_value({ec, "resolve"});
                             for (const auto& entry : results) endpoints.emplace_back(entry.endpoint());
                             connect(done);
                           });
  }

  /// Connects to the first of `endpoints` that answers, then upgrades to WebSocket.
  void connect(std::shared_ptr<std::promise<ConnectOutcome>> done) {
    beast::get_lowest_layer(ws).expires_after(options.connect_timeout);
    beast::get_lowest_layer(ws).async_connect(endpoints, [this, done](beast::error_code ec, const Protocol::endpoint&) {
      if (ec) return done->set_value({ec, "connect"});
      const std::string token = options.token;
      ws.set_option(websocket::stream_base::decorator([token](websocket::request_type& request) {
        request.set(http::field::user_agent, std::string("agentry-cli/") + AGENTRY_VERSION);
        request.set("X-Agentry-Client", "cli");
        if (!token.empty()) request.set(http::field::authorization, "Bearer " + token);
      }));
      // A socket has no host name; the daemon answers to localhost whatever it listens on.
      std::string host = "localhost";
      if (!url.is_unix()) {
        host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
        host += ":" + std::to_string(url.port);
      }
      ws.async_handshake(handshake_response, host, "/", [this, done](beast::error_code ec2) {
        if (!ec2) {
          beast::get_lowest_layer(ws).expires_never();
          ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
          ws.read_message_max(64 * 1024 * 1024);
          ws.text(true);
          {
            std::lock_guard lock(mutex);
            reading = true;
          }
          read_next();
        }
        done->set_value({ec2, "handshake"});
      });
    });
  }

  core::Error connect_error(const ConnectOutcome& outcome) const {
    const auto& ec = outcome.ec;
    if (outcome.stage == "resolve")
      return core::make_error(ErrorCode::internal, "cannot connect to " + where() + ": cannot resolve '" + url.host +
                                                       "': " + ec.message());
    if (outcome.stage == "connect") {
      if (ec == net::error::connection_refused)
        return core::make_error(ErrorCode::internal,
                                "cannot connect to " + where() + ": connection refused; is `agentry serve` running?");
      if (url.is_unix() && ec == net::error::access_denied)
        return core::make_error(ErrorCode::internal, "cannot connect to " + where() + ": " + ec.message() +
                                                         "; the daemon's socket is for the user it runs as");
      if (ec == beast::error::timeout)
        return core::make_error(ErrorCode::internal, "cannot connect to " + where() + ": no answer within " +
                                                         seconds(options.connect_timeout) +
                                                         "; is `agentry serve` running there?");
      return core::make_error(ErrorCode::internal, "cannot connect to " + where() + ": " + ec.message() +
                                                       "; is `agentry serve` running?");
    }
    const unsigned status = handshake_response.result_int();
    if (ec == websocket::error::upgrade_declined && status == 401)
      return core::make_error(ErrorCode::unauthenticated,
                              options.token.empty()
                                  ? "the daemon at " + where() + " requires a token: set AGENTRY_DAEMON_TOKEN (HTTP 401)"
                                  : "the daemon at " + where() + " refused the token in AGENTRY_DAEMON_TOKEN (HTTP 401)");
    if (ec == websocket::error::upgrade_declined)
      return core::make_error(ErrorCode::internal, "the server at " + where() + " refused the WebSocket upgrade (HTTP " +
                                                       std::to_string(status) +
                                                       "); is it an agentry daemon that speaks WebSocket JSON-RPC?");
    if (ec == beast::error::timeout)
      return core::make_error(ErrorCode::internal, "cannot connect to " + where() + ": the WebSocket handshake took over " +
                                                       seconds(options.connect_timeout));
    return core::make_error(ErrorCode::internal, "cannot connect to " + where() + ": WebSocket handshake failed: " +
                                                     ec.message());
  }

  // --- reading and dispatching (I/O thread) ---

  void read_next() {
    ws.async_read(buffer, [this](beast::error_code ec, std::size_t) {
      if (ec) {
        std::string why = ec == websocket::error::closed ? "the daemon closed the connection" : ec.message();
        if (ec == websocket::error::closed && !ws.reason().reason.empty())
          why += ": " + std::string(ws.reason().reason.c_str());
        connection_lost(why);
        return;
      }
      std::string text = beast::buffers_to_string(buffer.data());
      buffer.consume(buffer.size());
      dispatch(text);
      read_next();
    });
  }

  void dispatch(const std::string& text) {
    auto incoming = parse_rpc_incoming(text);
    if (auto* response = std::get_if<RpcResponse>(&incoming)) {
      std::shared_ptr<Pending> call;
      {
        std::lock_guard lock(mutex);
        auto it = pending.find(response->id);
        if (it == pending.end()) return;  // the caller gave up waiting, or an answer to garbage (id null)
        call = it->second;
        pending.erase(it);
        // Installed before any later message is read: a notification that follows
        // the answer always finds its subscriber.
        if (call->subscriber && response->ok && response->result.is_object())
          if (auto* id = response->result.as_object().if_contains("subscriptionId"); id && id->is_string())
            subscriptions[std::string(id->as_string())] = *call->subscriber;
      }
      if (!response->ok) response->error = rpc_error_to_error(response->error_object, call->method);
      call->promise.set_value(std::move(*response));
      return;
    }
    auto* notification = std::get_if<RpcNotification>(&incoming);
    if (!notification) return;  // nothing to answer it with; the daemon never sends garbage
    if (notification->method.rfind("stream.", 0) == 0) {
      auto* sid = notification->params.if_contains("streamId");
      if (!sid || !sid->is_string()) return;
      {
        std::lock_guard lock(mutex);
        stream_inbox[std::string(sid->as_string())].push_back(std::move(*notification));
      }
      stream_arrived.notify_all();
      return;
    }
    std::string sub;
    if (auto* id = notification->params.if_contains("subscriptionId"); id && id->is_string())
      sub = std::string(id->as_string());
    std::lock_guard dispatching(dispatch_mutex);
    StreamHandlers handlers;
    {
      std::lock_guard lock(mutex);
      auto it = subscriptions.find(sub);
      if (it == subscriptions.end()) return;
      handlers = it->second;
      if (notification->method == "events.closed") subscriptions.erase(it);
    }
    if (notification->method == "events.closed") {
      if (handlers.on_closed) handlers.on_closed("the daemon ended the subscription (its run was deleted, or this client fell behind)");
    } else if (handlers.on_event) {
      handlers.on_event(StreamEvent{notification->method, std::move(notification->params)});
    }
  }

  void connection_lost(const std::string& why) {
    std::map<std::int64_t, std::shared_ptr<Pending>> calls;
    std::map<std::string, StreamHandlers> subs;
    bool quiet = false;
    {
      std::lock_guard lock(mutex);
      if (!lost) lost = why;
      calls.swap(pending);
      subs.swap(subscriptions);
      quiet = shutting_down;
      reading = false;
    }
    reading_ended.notify_all();
    stream_arrived.notify_all();
    outbox.clear();
    for (auto& [id, call] : calls) {
      RpcResponse r;
      r.id = id;
      r.error = core::make_error(ErrorCode::internal, "lost the connection to the daemon at " + where() + ": " + why);
      call->promise.set_value(std::move(r));
    }
    if (quiet) return;
    std::lock_guard dispatching(dispatch_mutex);
    for (auto& [id, handlers] : subs)
      if (handlers.on_closed) handlers.on_closed("lost the connection to the daemon at " + where() + ": " + why);
  }

  // --- writing ---

  /// Any thread: queues `text` for the I/O thread.
  void send(std::string text) {
    net::post(ioc, [this, text = std::move(text)]() mutable {
      {
        std::lock_guard lock(mutex);
        if (lost) return;
      }
      outbox.push_back(std::move(text));
      if (!writing) write_next();
    });
  }

  void write_next() {
    writing = true;
    ws.async_write(net::buffer(outbox.front()), [this](beast::error_code ec, std::size_t) {
      if (ec) {
        writing = false;
        connection_lost(ec.message());
        return;
      }
      if (!outbox.empty()) outbox.pop_front();
      if (outbox.empty()) writing = false;
      else write_next();
    });
  }

  core::Result<RpcResponse> request(const std::string& method, const json::object& params,
                                    std::optional<StreamHandlers> subscriber = std::nullopt) {
    auto call = std::make_shared<Pending>();
    call->method = method;
    call->subscriber = std::move(subscriber);
    auto answer = call->promise.get_future();
    std::int64_t id = 0;
    {
      std::lock_guard lock(mutex);
      if (lost) return core::fail(ErrorCode::internal, "lost the connection to the daemon at " + where() + ": " + *lost);
      id = next_id++;
      pending[id] = call;
    }
    send(rpc_request_text(id, method, params));
    // An operation that waits on something of its own (runs.ask's timeoutSec) gets that long and a margin.
    auto patience = options.call_timeout;
    if (const json::value* t = params.if_contains("timeoutSec"); t && t->is_int64())
      patience = std::max<std::chrono::milliseconds>(patience, std::chrono::seconds(t->get_int64() + 10));
    if (answer.wait_for(patience) != std::future_status::ready) {
      std::lock_guard lock(mutex);
      pending.erase(id);
      return core::fail(ErrorCode::internal, "no answer from the daemon at " + where() + " to " + method + " within " +
                                                 seconds(patience));
    }
    return answer.get();
  }

  /// The next stream.* notification of `sid`; an error when the connection is lost or
  /// nothing comes within the call timeout.
  core::Result<RpcNotification> next_stream_message(const std::string& sid) {
    std::unique_lock lock(mutex);
    const bool ready = stream_arrived.wait_for(lock, options.call_timeout, [&] {
      auto it = stream_inbox.find(sid);
      return lost || (it != stream_inbox.end() && !it->second.empty());
    });
    auto it = stream_inbox.find(sid);
    if (it != stream_inbox.end() && !it->second.empty()) {
      RpcNotification n = std::move(it->second.front());
      it->second.pop_front();
      return n;
    }
    if (lost) return core::fail(ErrorCode::internal, "lost the connection to the daemon at " + where() + ": " + *lost);
    (void)ready;
    return core::fail(ErrorCode::internal, "the daemon at " + where() + " sent nothing on stream " + sid + " within " +
                                               seconds(options.call_timeout));
  }

  void forget_stream(const std::string& sid) {
    std::lock_guard lock(mutex);
    stream_inbox.erase(sid);
  }

  void send_notification(const std::string& method, json::object params) {
    send(json::serialize(json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}));
  }

  void shutdown() {
    bool was_reading = false;
    {
      std::lock_guard lock(mutex);
      shutting_down = true;
      was_reading = reading;
    }
    if (was_reading) {
      net::post(ioc, [this] {
        ws.async_close(websocket::close_code::normal, [](beast::error_code) {});
      });
      std::unique_lock lock(mutex);
      reading_ended.wait_for(lock, std::chrono::seconds(2), [this] { return !reading; });
    }
    work.reset();
    ioc.stop();
    if (thread.joinable()) thread.join();
  }
};

core::Result<std::unique_ptr<ConnectedClient>> ConnectedClient::connect(const ConnectOptions& options) {
  auto url = parse_connect_url(options.url);
  if (!url) return url.failure();
  auto impl = std::make_unique<Impl>(options, *url);
  auto* raw = impl.get();
  impl->thread = std::thread([raw] { raw->ioc.run(); });
  auto done = std::make_shared<std::promise<ConnectOutcome>>();
  auto outcome = done->get_future();
  net::post(impl->ioc, [raw, done] { raw->start_connect(done); });
  // The socket's own deadline covers connect and handshake; resolving gets the margin.
  if (outcome.wait_for(options.connect_timeout + std::chrono::seconds(5)) != std::future_status::ready) {
    impl->shutdown();
    return core::fail(ErrorCode::internal, "cannot connect to " + options.url + ": no answer within " +
                                               seconds(options.connect_timeout) + "; is `agentry serve` running there?");
  }
  auto result = outcome.get();
  if (result.ec) {
    auto error = impl->connect_error(result);
    impl->shutdown();
    return core::fail(std::move(error));
  }
  return std::unique_ptr<ConnectedClient>(new ConnectedClient(std::move(impl)));
}

ConnectedClient::ConnectedClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ConnectedClient::~ConnectedClient() { impl_->shutdown(); }

core::Result<json::value> ConnectedClient::call(const std::string& method, json::object params) {
  auto answer = impl_->request(method, params);
  if (!answer) return answer.failure();
  if (!answer->ok) return core::fail(std::move(answer->error));
  return std::move(answer->result);
}

core::Result<std::string> ConnectedClient::subscribe(const SubscribeRequest& request, StreamHandlers handlers) {
  json::object params{{"channel", request.channel}};
  if (request.run_id) params["runId"] = *request.run_id;
  if (request.after) params["after"] = *request.after;
  auto answer = impl_->request("events.subscribe", params, std::move(handlers));
  if (!answer) return answer.failure();
  if (!answer->ok) return core::fail(std::move(answer->error));
  auto* id = answer->result.is_object() ? answer->result.as_object().if_contains("subscriptionId") : nullptr;
  if (!id || !id->is_string())
    return core::fail(ErrorCode::internal, "the daemon answered events.subscribe without a subscriptionId");
  return std::string(id->as_string());
}

void ConnectedClient::unsubscribe(const std::string& subscription_id) {
  bool known = false;
  {
    std::lock_guard lock(impl_->mutex);
    known = impl_->subscriptions.erase(subscription_id) > 0;
  }
  { std::lock_guard dispatching(impl_->dispatch_mutex); }  // a handler running now finishes first
  if (!known) return;
  // Best effort, unanswered: the daemon also drops subscriptions when the connection closes.
  std::int64_t id = 0;
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->lost) return;
    id = impl_->next_id++;
  }
  impl_->send(rpc_request_text(id, "events.unsubscribe", json::object{{"subscriptionId", subscription_id}}));
}

// --- the byte streams of attachment transfers (connected_attachment_transfer.cpp) ---

void ConnectedClient::send_stream_notification(const std::string& method, json::object params) {
  impl_->send_notification(method, std::move(params));
}

core::Result<RpcNotification> ConnectedClient::next_stream_message(const std::string& stream_id) {
  return impl_->next_stream_message(stream_id);
}

void ConnectedClient::forget_stream(const std::string& stream_id) { impl_->forget_stream(stream_id); }

std::optional<RpcNotification> ConnectedClient::take_stream_error(const std::string& stream_id) {
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->stream_inbox.find(stream_id);
  if (it == impl_->stream_inbox.end()) return std::nullopt;
  for (auto& n : it->second)
    if (n.method == "stream.error") {
      RpcNotification error = std::move(n);
      impl_->stream_inbox.erase(it);
      return error;
    }
  return std::nullopt;
}

std::string ConnectedClient::describe() const { return impl_->options.url; }

}  // namespace agentry::cli
