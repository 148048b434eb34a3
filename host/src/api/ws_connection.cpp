#include "api/ws_connection.hpp"

#include "api/byte_streams.hpp"
#include "api/coalescing_stream.hpp"
#include "api/jsonrpc.hpp"
#include "api/quick_reads.hpp"
#include "api/request_metrics.hpp"
#include "api/run_scope.hpp"
#include "api/run_streams.hpp"
#include "api/server_errors.hpp"
#include "api/slow_work.hpp"
#include "api/unsent_memory.hpp"
#include "api/websocket_frame_header.hpp"
#include "api/websocket_message.hpp"
#include "api/worker_dispatch.hpp"
#include "core/ids.hpp"
#include "core/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::api {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace json = boost::json;

namespace {

constexpr std::size_t max_subscriptions = 64;
constexpr std::size_t max_outbox_messages = 4096;
constexpr std::size_t max_outbox_bytes = 16 * 1024 * 1024;
constexpr std::size_t max_in_flight_requests = 64;
// A subscription polls its source only while the outbox holds less than this, so a
// slow reader makes its streams conflate (events/timeline_feed.hpp) instead of
// filling memory or being cut off.
constexpr std::size_t outbox_low_water = 256;
constexpr std::size_t outbox_low_water_bytes = 64 * 1024;
// Bytes handed to the socket layer and not yet written (api/coalescing_stream.hpp); while
// connections' share of the stream memory is spent, the lean figure.
constexpr std::size_t max_unsent_bytes = 64 * 1024;
constexpr std::size_t lean_write_ahead_bytes = 8 * 1024;

/// Timeline and audit notifications carry a cursor and wrap the event; summary and
/// detail ones take the event's members into their params.
bool is_cursored(std::string_view channel) { return channel == "timeline" || channel == "audit"; }

struct Subscription {
  std::shared_ptr<EventStream> source;
  // The notification's JSON up to the event (up to the cursor's digits when cursored),
  // shared by every notification of the subscription.
  std::shared_ptr<const std::string> head;
  bool cursored = false;
  bool polling = false;
  bool pending = false;
  bool waiting_for_room = false;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(WebSocketServices services, ServedStream stream, bool cli_client, std::string scope_run_id)
      : services_(services),
        ws_(CoalescingStream(std::move(stream), services.unsent_memory)),
        send_signal_(ws_.get_executor()),
        write_deadline_(ws_.get_executor()),
        actor_{cli_client ? "cli" : "ws"},
        var_origin_(cli_client ? engine::VarOrigin::cli : engine::VarOrigin::web),
        scope_run_id_(std::move(scope_run_id)),
        outbox_unsent_(services.unsent_memory, 0) {}

  net::awaitable<void> run(beast::http::request<beast::http::string_body> request) {
    beast::get_lowest_layer(ws_).expires_never();  // the websocket's own timeouts take over
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws_.read_message_max(services_.limits.max_body_bytes);
    auto [accept_ec] = co_await ws_.async_accept(request, net::as_tuple(net::use_awaitable));
    if (accept_ec) co_return;
    auto self = shared_from_this();
    std::weak_ptr<Connection> weak = self;
    byte_streams_ = std::make_shared<ByteStreams>(
        ws_.get_executor(), services_.workers, services_.engine, actor_, scope_run_id_,
        [weak](std::string text) {
          if (auto me = weak.lock()) me->send(std::move(text));
        },
        [weak]() -> std::size_t {
          auto me = weak.lock();
          return me ? me->outbox_bytes_ : 0;
        },
        stream_limits());
    start_write_watchdog();
    net::co_spawn(ws_.get_executor(), [self]() { return self->write_loop(); }, net::detached);
    beast::flat_buffer buffer;
    for (;;) {
      auto [ec, n] = co_await ws_.async_read(buffer, net::as_tuple(net::use_awaitable));
      if (ec) {
        if (ec == websocket::error::message_too_big)
          close_with("message larger than " + std::to_string(services_.limits.max_body_bytes) + " bytes");
        break;
      }
      std::string text = beast::buffers_to_string(buffer.data());
      buffer.consume(buffer.size());
      if (!ws_.got_text()) {
        send(jsonrpc_error(nullptr, jsonrpc_invalid_request, "binary frames are not supported; send JSON text"));
        continue;
      }
      auto parsed = parse_jsonrpc_request(text);
      if (auto* rpc = std::get_if<JsonRpcRequest>(&parsed);
          rpc && !rpc->id && ByteStreams::is_stream_method(rpc->method)) {
        // Byte stream frames are handled here, in arrival order, never queued behind requests.
        byte_streams_->on_notification(rpc->method, rpc->params);
        continue;
      }
      if (in_flight_ >= max_in_flight_requests) {
        send(jsonrpc_error(nullptr, jsonrpc_invalid_request,
                           "too many requests in flight on this connection; wait for answers"));
        continue;
      }
      ++in_flight_;
      net::co_spawn(ws_.get_executor(), [self, parsed = std::move(parsed)]() mutable { return self->handle(std::move(parsed)); }, net::detached);
    }
    byte_streams_->close();
    closing_ = true;
    subscriptions_.clear();
    send_signal_.cancel();
  }

 private:
  /// [strand] Queues an answer; a client that lets answers pile up is disconnected.
  void send(std::string text) { enqueue(OutgoingMessage::answer(std::move(text))); }

  void enqueue(OutgoingMessage message) {
    if (closing_) return;
    if (outbox_.size() >= max_outbox_messages || outbox_bytes_ + message.size() > max_outbox_bytes) {
      close_with("slow consumer: the outbox is full; reconnect and resume from your last cursor");
      return;
    }
    outbox_bytes_ += message.size();
    outbox_unsent_.grow(message.size());
    outbox_.push_back(std::move(message));
    send_signal_.cancel();
  }

  void close_with(std::string reason) {
    if (closing_) return;
    core::log_warn("closing websocket connection", {{"reason", reason}});
    close_reason_ = std::move(reason);
    closing_ = true;
    outbox_.clear();
    outbox_bytes_ = 0;
    outbox_unsent_.release();
    subscriptions_.clear();
    send_signal_.cancel();
  }

  /// [strand] A write the client does not take within the write timeout has stalled:
  /// the connection is dropped, and the client resumes by cursor. One watchdog per
  /// connection looks at the write in flight now and then, instead of a timer per
  /// message (a notification costs a few microseconds; a timer would double that).
  void start_write_watchdog() {
    const auto period = std::max(services_.limits.write_timeout / 4, std::chrono::milliseconds(10));
    write_deadline_.expires_after(period);
    write_deadline_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
      auto self = weak.lock();
      if (ec || !self || self->closed_for_good_) return;
      auto started = self->ws_.next_layer().write_started();
      if (started && std::chrono::steady_clock::now() - *started > self->services_.limits.write_timeout) {
        core::log_warn("closing websocket connection", {{"reason", "a write stalled past the write timeout"}});
        self->closing_ = true;
        boost::system::error_code ignored;
        beast::get_lowest_layer(self->ws_).socket().close(ignored);
        return;
      }
      self->start_write_watchdog();
    });
  }

  net::awaitable<void> write_loop() {
    auto self = shared_from_this();
    auto& stream = ws_.next_layer();
    for (;;) {
      if (outbox_.empty()) {
        if (closing_) break;
        send_signal_.expires_at(net::steady_timer::time_point::max());
        co_await send_signal_.async_wait(net::as_tuple(net::use_awaitable));
        continue;
      }
      // Written ahead only so far: a client that reads slowly holds up the socket, not memory.
      while (stream.pending_bytes() > write_ahead_limit() && !closing_) {
        stream.release();  // held bytes go now: below the hold limit nothing else sends them
        stream.drained().expires_at(net::steady_timer::time_point::max());
        co_await stream.drained().async_wait(net::as_tuple(net::use_awaitable));
      }
      // Once the WebSocket layer has answered a close, no message may follow it.
      if (!ws_.is_open() || !write_ready_messages()) {
        closing_ = true;
        break;
      }
      if (has_room()) resume_waiting_subscriptions();
      byte_streams_->on_room();
    }
    if (!close_reason_.empty()) {
      websocket::close_reason reason(websocket::close_code::policy_error);
      reason.reason = close_reason_.substr(0, 120);  // a close frame holds 123 bytes of reason
      auto [ec] = co_await ws_.async_close(reason, net::as_tuple(net::use_awaitable));
      (void)ec;
    }
    closed_for_good_ = true;
    write_deadline_.cancel();
  }

  /// [strand] Frames the outbox's messages into the stream, the first whatever the stream
  /// holds (so a closing connection, which does not wait for room, still gets its answers
  /// out), then more until it holds as much as it may write ahead: gathered into as few
  /// writes to the socket as they fit. False once the socket failed.
  bool write_ready_messages() {
    auto& stream = ws_.next_layer();
    stream.hold();
    for (bool first = true; !outbox_.empty() && (first || stream.pending_bytes() <= write_ahead_limit());
         first = false) {
      OutgoingMessage message = std::move(outbox_.front());
      outbox_.pop_front();
      outbox_bytes_ -= message.size();
      outbox_unsent_.shrink(message.size());
      const auto header = text_frame_header(message.size());
      const auto pieces = message.buffers();
      const std::array<net::const_buffer, 6> buffers{net::buffer(header.bytes.data(), header.size),
                                                     pieces[0], pieces[1], pieces[2], pieces[3], pieces[4]};
      if (!stream.write(buffers)) return false;
    }
    stream.release();
    return true;
  }

  /// Whether subscriptions may add to the outbox (a slow reader's streams merge meanwhile).
  /// While connections' share of the stream memory is spent, only an empty one has room.
  bool has_room() const {
    return outbox_.size() < outbox_low_water && outbox_bytes_ < outbox_low_water_bytes &&
           (outbox_.empty() || unsent_has_room(services_.unsent_memory.get()));
  }
  /// How far the socket layer may write ahead of the socket.
  std::size_t write_ahead_limit() const {
    return unsent_has_room(services_.unsent_memory.get()) ? max_unsent_bytes : lean_write_ahead_bytes;
  }

  void resume_waiting_subscriptions() {
    std::vector<std::string> ready;
    for (auto& [id, sub] : subscriptions_)
      if (sub.waiting_for_room) {
        sub.waiting_for_room = false;
        ready.push_back(id);
      }
    for (const auto& id : ready) schedule_poll(id);
  }

  net::awaitable<void> handle(std::variant<JsonRpcRequest, std::string> parsed) {
    auto self = shared_from_this();
    if (auto* error = std::get_if<std::string>(&parsed)) {
      --in_flight_;
      send(std::move(*error));
      co_return;
    }
    auto request = std::get<JsonRpcRequest>(std::move(parsed));
    const json::value id = request.id.value_or(nullptr);
    const auto started = std::chrono::steady_clock::now();
    const std::string method = request.method;  // call_operation takes the request's
    bool known = true;
    std::string answer;
    if (request.method == "events.subscribe") {
      answer = co_await subscribe(id, std::move(request.params));
    } else if (request.method == "events.unsubscribe") {
      answer = unsubscribe(id, request.params);
    } else if (ByteStreams::is_stream_request(request.method)) {
      const auto* dialect = services_.dialect;
      if (dialect && dialect->stream_params) dialect->stream_params(request.method, request.params);
      answer = co_await byte_streams_->call(id, request.method, std::move(request.params));
      if (dialect) answer = reword_stream_answer(*dialect, request.method, std::move(answer));
    } else if (!operations().find(request.method)) {
      known = false;
      answer = jsonrpc_error(id, jsonrpc_method_not_found, "no method named '" + request.method + "'");
    } else {
      OperationAnswer first = co_await call_operation(id, request);
      // Not one conditional expression: GCC 12 mishandles a co_await inside one.
      if (first.blocking)
        answer = co_await finish_on_blocking_pool(std::move(first.blocking));
      else
        answer = std::move(first.text);
    }
    observe_ws_call(method, known, started);
    --in_flight_;
    if (request.id && !answer.empty()) send(std::move(answer));
  }

  net::awaitable<std::string> subscribe(json::value id, json::object params) {
    JsonBody body(std::move(params));
    if (auto ok = body.allow_only({"channel", "runId", "after"}); !ok) co_return fail(id, ok.error());
    auto channel = body.required_string("channel");
    if (!channel) co_return fail(id, channel.error());
    auto after = body.optional_int("after", 0, INT64_MAX);
    if (!after) co_return fail(id, after.error());
    StreamRequest request{*channel, {}, after->value_or(0), /*websocket=*/true};
    if (*channel != "run_summary" || body.has("runId")) {
      auto rid = run_id_of(body);
      if (!rid) co_return fail(id, rid.error());
      request.run_id = *rid;
    }
    if (auto allowed = check_stream_scope(request.run_id, scope_run_id_); !allowed)
      co_return fail(id, allowed.error());
    if (subscriptions_.size() >= max_subscriptions)
      co_return fail(id, core::make_error(core::ErrorCode::conflict,
                                                   "at most " + std::to_string(max_subscriptions) +
                                                       " subscriptions per connection"));
    const std::string run_id = request.run_id;
    auto opened = co_await open_on_workers(std::move(request));
    if (!opened) co_return fail(id, opened.error());
    auto source = std::move(*opened);
    std::string sub_id = core::new_prefixed_id("sub");
    subscriptions_[sub_id] =
        Subscription{source, std::make_shared<const std::string>(notification_head(sub_id, source->channel(), run_id)),
                     is_cursored(source->channel())};
    std::weak_ptr<Connection> weak = shared_from_this();
    auto executor = ws_.get_executor();
    source->start([weak, executor, sub_id] {
      net::post(executor, [weak, sub_id] {
        if (auto self = weak.lock()) self->schedule_poll(sub_id);
      });
    });
    co_return jsonrpc_result(id, json::object{{"subscriptionId", sub_id}});
  }

  std::string unsubscribe(const json::value& id, const json::object& params) {
    JsonBody body(params);
    if (auto ok = body.allow_only({"subscriptionId"}); !ok) return fail(id, ok.error());
    auto sub = body.required_string("subscriptionId");
    if (!sub) return fail(id, sub.error());
    if (subscriptions_.erase(*sub) == 0)
      return fail(id, core::make_error(core::ErrorCode::not_found, "no subscription '" + *sub + "'"));
    return jsonrpc_result(id, json::object{{"unsubscribed", true}});
  }

  /// [strand] Polls a subscription's source, one poll at a time per subscription.
  void schedule_poll(const std::string& sub_id) {
    auto it = subscriptions_.find(sub_id);
    if (it == subscriptions_.end() || closing_) return;
    it->second.pending = true;
    if (it->second.polling) return;
    it->second.polling = true;
    auto self = shared_from_this();
    net::co_spawn(ws_.get_executor(), [self, sub_id]() { return self->poll(sub_id); }, net::detached);
  }

  net::awaitable<void> poll(std::string sub_id) {
    auto self = shared_from_this();
    for (;;) {
      auto it = subscriptions_.find(sub_id);
      if (it == subscriptions_.end()) co_return;
      if (!it->second.pending || closing_) {
        it->second.polling = false;
        co_return;
      }
      if (!has_room()) {
        // The client reads slower than events come: wait for room; the feed merges meanwhile.
        it->second.waiting_for_room = true;
        it->second.polling = false;
        co_return;
      }
      it->second.pending = false;
      auto source = it->second.source;
      core::ByteHold reserved;  // until the frames are here
      const auto frames = reserve_batch(services_.unsent_memory, outbox_low_water, reserved);
      // From memory on this strand when the stream can; from the workers when it must read the store.
      StreamBatch batch;
      if (auto ready = source->poll_ready(frames)) batch = std::move(*ready);
      else batch = co_await poll_source(source, frames);
      reserved.release();  // the outbox counts the frames now
      it = subscriptions_.find(sub_id);
      if (it == subscriptions_.end()) co_return;
      for (auto& frame : batch.frames) {
        if (it->second.cursored) {
          const std::int64_t cursor = frame->cursor;  // read before the frame moves into the message
          enqueue(OutgoingMessage::notification(it->second.head, cursor, std::move(frame)));
        } else {
          // Summary and detail events are objects: their members join the params.
          const auto json = frame->json();
          send(*it->second.head + std::string(json.substr(1)) + "}");
        }
      }
      if (batch.closed) {
        subscriptions_.erase(sub_id);
        send(json::serialize(json::object{
            {"jsonrpc", "2.0"}, {"method", "events.closed"}, {"params", {{"subscriptionId", sub_id}}}}));
        co_return;
      }
      if (batch.more) it->second.pending = true;
    }
  }

  /// The notification's JSON up to its event: {"jsonrpc","method","params":{"subscriptionId",
  /// and for timeline and audit "runId" and "cursor":.
  static std::string notification_head(const std::string& sub_id, const char* channel, const std::string& run_id) {
    std::string head = R"({"jsonrpc":"2.0","method":"run.)" + std::string(channel) + R"(","params":{"subscriptionId":)";
    events::append_json_string(head, sub_id);
    if (!is_cursored(channel)) return head + ",";
    head += R"(,"runId":)";
    events::append_json_string(head, run_id);
    return head + R"(,"cursor":)";
  }

  // GCC 12 destroys lambda temporaries created inside a co_await expression twice, so
  // the callables handed to on_workers() are built in these plain (non-coroutine)
  // functions.

  /// An operation's JSON-RPC answer, or the part of it that must wait on a program.
  struct OperationAnswer {
    std::string text;
    std::function<std::string()> blocking;
  };

  net::awaitable<std::string> finish_on_blocking_pool(std::function<std::string()> blocking) {
    return on_workers<std::string>(services_.blocking_workers, std::move(blocking));
  }

  net::awaitable<OperationAnswer> call_operation(json::value id, JsonRpcRequest request) {
    const WebSocketDialect* dialect = services_.dialect;
    // The reference names the run `target`; definitions' methods use `target` for theirs.
    const bool definition_method = request.method.rfind("agents.", 0) == 0 ||
                                   request.method.rfind("assignments.", 0) == 0 ||
                                   request.method.rfind("launchers.", 0) == 0 ||
                                   request.method.rfind("environments.", 0) == 0 ||
                                   request.method.rfind("taskDefinitions.", 0) == 0;
    if (!dialect && !definition_method && request.params.contains("target") && !request.params.contains("runId")) {
      // Copied out first: inserting runId may reallocate the object under a reference.
      json::value target = request.params.at("target");
      request.params.erase("target");
      request.params["runId"] = std::move(target);
    }
    OperationRequest op{std::move(request.params), actor_, var_origin_, scope_run_id_};
    const bool here = services_.quick_reads_inline && !dialect && is_quick_method(request.method);
    auto& pool = is_slow_method(request.method) ? services_.slow_workers : services_.workers;
    auto work = [&ops = operations(), dialect, id = std::move(id), method = std::move(request.method),
                 op = std::move(op)]() {
      auto answer = [id, method, dialect](const core::Result<OperationResult>& result) {
        if (result) return jsonrpc_result(id, result->body);
        auto error = client_error(result.error(), new_request_id(), method);
        return dialect ? dialect->error(id, error) : jsonrpc_error(id, error);
      };
      auto result = dialect ? dialect->call(ops, method, op) : ops.call(method, op);
      if (result && result->blocking)
        return OperationAnswer{{}, [answer, blocking = std::move(result->blocking)] { return answer(finish(blocking())); }};
      return OperationAnswer{answer(result), {}};
    };
    return here ? in_place<OperationAnswer>(std::move(work)) : on_workers<OperationAnswer>(pool, std::move(work));
  }

  net::awaitable<StreamBatch> poll_source(std::shared_ptr<EventStream> source, std::size_t max_frames) {
    return on_workers<StreamBatch>(services_.workers, [source = std::move(source), max_frames]() {
      return poll_stream(*source, max_frames, false);
    });
  }

  net::awaitable<core::Result<std::shared_ptr<EventStream>>> open_on_workers(StreamRequest request) {
    auto& engine = services_.engine;
    const WebSocketDialect* dialect = services_.dialect;
    return on_workers<core::Result<std::shared_ptr<EventStream>>>(
        services_.workers, [&engine, dialect, request = std::move(request)]() {
          return dialect ? dialect->open(request) : open_stream(engine, request);
        });
  }

  /// A byte-stream answer in the dialect's words: its result reworded, an error its way.
  static std::string reword_stream_answer(const WebSocketDialect& dialect, std::string_view method, std::string answer) {
    boost::system::error_code ec;
    auto parsed = json::parse(answer, ec);
    if (ec || !parsed.is_object()) return answer;
    auto& message = parsed.as_object();
    const json::value id = message.contains("id") ? message.at("id") : json::value(nullptr);
    if (auto* result = message.if_contains("result"); result && result->is_object() && dialect.stream_result) {
      dialect.stream_result(method, result->as_object());
      return json::serialize(message);
    }
    if (auto* error = message.if_contains("error"); error && error->is_object()) {
      const auto* text = error->as_object().if_contains("message");
      const auto* code = error->as_object().if_contains("code");
      const bool internal = code && code->is_int64() && code->as_int64() == jsonrpc_runtime_error;
      return dialect.error(id, core::make_error(internal ? core::ErrorCode::internal : core::ErrorCode::conflict,
                                                text && text->is_string() ? std::string(text->as_string()) : ""));
    }
    return answer;
  }

  ByteStreamLimits stream_limits() const {
    ByteStreamLimits limits;
    if (services_.dialect) limits.first_data_delay = services_.dialect->download_data_delay;
    return limits;
  }

  /// The methods this connection answers: the dialect's, or ours.
  const Operations& operations() const {
    return services_.dialect ? *services_.dialect->operations : services_.operations;
  }
  /// An error answer in this connection's wording.
  std::string fail(const json::value& id, const core::Error& error) const {
    return services_.dialect ? services_.dialect->error(id, error) : jsonrpc_error(id, error);
  }

  WebSocketServices services_;
  websocket::stream<CoalescingStream> ws_;
  net::steady_timer send_signal_;
  net::steady_timer write_deadline_;
  bool closed_for_good_ = false;
  std::deque<OutgoingMessage> outbox_;
  std::size_t outbox_bytes_ = 0;
  bool closing_ = false;
  std::string close_reason_;
  std::size_t in_flight_ = 0;
  std::map<std::string, Subscription> subscriptions_;
  std::shared_ptr<ByteStreams> byte_streams_;
  // The agentry CLI says so in its handshake (X-Agentry-Client: cli): its vars then
  // count as coming from the command line, and the audit trail names it.
  engine::Actor actor_;
  engine::VarOrigin var_origin_;
  std::string scope_run_id_;  // a per-run token's run: the only one this connection may act on
  core::ByteHold outbox_unsent_;  // outbox_bytes_, in the connections' share
};

}  // namespace

net::awaitable<void> serve_websocket(WebSocketServices services, ServedStream stream,
                                     beast::http::request<beast::http::string_body> request, std::string scope_run_id) {
  const bool cli_client = request["X-Agentry-Client"] == "cli";
  // Our CLI speaks our dialect wherever it connects (the `agent-runner` command included).
  if (cli_client) services.dialect = nullptr;
  auto connection = std::make_shared<Connection>(services, std::move(stream), cli_client, std::move(scope_run_id));
  co_await connection->run(std::move(request));
}

}  // namespace agentry::api
