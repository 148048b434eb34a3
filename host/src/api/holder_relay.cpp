#include "api/holder_relay.hpp"

#include "core/log.hpp"
#include "core/notify_target.hpp"
#include "engine/engine.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

namespace agentry::api {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

namespace {

constexpr auto connect_timeout = 2s;
constexpr auto idle_timeout = 60s;      // past several heartbeats of the driver's stream
constexpr auto look_again_every = 500ms;  // for a driver, and whether it still drives the run
// A driver that let go of the run may still have its last events on the way.
constexpr auto drain_at_most = 2s;
constexpr auto drain_look_every = 10ms;

/// What the reader of a driver's stream has relayed, for the watcher beside it (both run
/// on the relay's one thread).
struct Progress {
  bool reading = true;
  std::int64_t cursor = 0;  // the last durable cursor relayed
};

/// The timeline event a stream's envelope stands for.
std::optional<core::TimelineEvent> event_of(std::string_view data) {
  boost::system::error_code ec;
  auto parsed = json::parse(data, ec);
  if (ec || !parsed.is_object()) return std::nullopt;
  const auto& o = parsed.as_object();
  const auto* kind = o.if_contains("kind");
  const auto* payload = o.if_contains("payload");
  if (!kind || !kind->is_string() || !payload || !payload->is_object()) return std::nullopt;
  core::TimelineEvent e;
  if (const auto* run = o.if_contains("runId"); run && run->is_string()) e.run_id = run->as_string();
  if (const auto* cursor = o.if_contains("cursor"); cursor && cursor->is_int64()) e.cursor = cursor->as_int64();
  e.ephemeral = e.cursor == 0;
  e.kind = kind->as_string();
  if (const auto* attempt = o.if_contains("attemptNumber"); attempt && attempt->is_int64())
    e.attempt_number = static_cast<int>(attempt->as_int64());
  if (const auto* at = o.if_contains("at"); at && at->is_string()) e.at = std::string_view(at->as_string());
  e.payload = payload->as_object();
  e.payload_json = json::serialize(e.payload);
  return e;
}

/// Server-Sent Events as the daemon writes them: `id:` and `data:` lines, a blank line
/// after each event, `:` comments (heartbeats) between.
class SseEvents {
 public:
  /// Appends `bytes`; the data of every event they completed, with its id.
  template <class F>
  void feed(std::string_view bytes, F&& on_event) {
    pending_.append(bytes);
    std::size_t start = 0;
    for (;;) {
      const auto end = pending_.find("\n\n", start);
      if (end == std::string::npos) break;
      std::string_view block(pending_.data() + start, end - start);
      std::string data;
      while (!block.empty()) {
        const auto nl = block.find('\n');
        const std::string_view line = block.substr(0, nl);
        block = nl == std::string_view::npos ? std::string_view() : block.substr(nl + 1);
        if (line.rfind("data: ", 0) == 0) data.append(line.substr(6));
      }
      if (!data.empty()) on_event(std::string_view(data));
      start = end + 2;
    }
    pending_.erase(0, start);
  }

 private:
  std::string pending_;
};

}  // namespace

struct HolderRelay::Relay {
  Relay(engine::Engine& e, std::string id, std::string t) : engine(e), run_id(std::move(id)), token(std::move(t)) {}

  engine::Engine& engine;
  const std::string run_id;
  const std::string token;
  net::io_context ioc;
  std::thread thread;
  std::atomic<bool> done{false};  // the thread has returned: joining it does not wait
  int followers = 0;

  void start() {
    net::co_spawn(ioc, loop(), net::detached);
    thread = std::thread([this] {
      ioc.run();
      done = true;
    });
  }
  /// Stops the loop wherever it waits, without waiting for it (it may be reading the
  /// store); the feed is no longer relayed.
  void stop() {
    ioc.stop();
    engine.bus().timeline().set_relayed(run_id, false);
  }

  net::awaitable<void> loop() {
    net::steady_timer pause(co_await net::this_coro::executor);
    for (;;) {
      if (auto url = engine.holder_url(run_id)) {
        co_await relay_from(*url);
        // Whatever it sent last, the store may have more now: the feed looks there.
        engine.bus().timeline().set_relayed(run_id, false);
        engine.bus().timeline().store_may_be_ahead([&](const std::string& id) { return id != run_id; });
      }
      pause.expires_after(look_again_every);
      co_await pause.async_wait(net::as_tuple(net::use_awaitable));
    }
  }

  /// Reads the driver's stream into the feed until it ends, fails, or the run moves on.
  net::awaitable<void> relay_from(const std::string& url) {
    const auto where = core::parse_http_url(url);
    if (!where || where->tls) {
      core::log_warn("cannot relay a run's live timeline from a member whose URL is not http://",
                     {{"runId", run_id}, {"url", url}});
      co_return;
    }
    // The member's base path (a proxy's mount), before /api.
    std::string mount = where->target.substr(0, where->target.find_first_of("?#"));
    while (!mount.empty() && mount.back() == '/') mount.pop_back();
    auto executor = co_await net::this_coro::executor;
    tcp::resolver resolver(executor);
    auto [resolve_error, endpoints] =
        co_await resolver.async_resolve(where->host, where->port, net::as_tuple(net::use_awaitable));
    if (resolve_error) co_return;
    auto stream = std::make_shared<beast::tcp_stream>(executor);
    stream->expires_after(connect_timeout);
    auto [connect_error, endpoint] = co_await stream->async_connect(endpoints, net::as_tuple(net::use_awaitable));
    if (connect_error) co_return;
    (void)endpoint;

    auto& feeds = engine.bus().timeline();
    std::int64_t base = feeds.last_cursor(run_id);
    if (base < 0) {
      auto last = engine.timeline_last_cursor(run_id);
      base = last ? *last : 0;
    }
    http::request<http::empty_body> request{http::verb::get,
                                            mount + "/api/runs/" + run_id + "/events/timeline?after=" +
                                                std::to_string(base),
                                            11};
    const bool ipv6 = where->host.find(':') != std::string::npos;
    request.set(http::field::host, (ipv6 ? "[" + where->host + "]" : where->host) + ":" + where->port);
    request.set(http::field::accept, "text/event-stream");
    request.set(http::field::user_agent, "agentry-relay");
    if (!token.empty()) request.set(http::field::authorization, "Bearer " + token);
    auto [write_error, written] = co_await http::async_write(*stream, request, net::as_tuple(net::use_awaitable));
    if (write_error) co_return;
    (void)written;

    beast::flat_buffer buffer;
    http::response_parser<http::buffer_body> parser;
    parser.body_limit(boost::none);
    auto [header_error, header_bytes] =
        co_await http::async_read_header(*stream, buffer, parser, net::as_tuple(net::use_awaitable));
    (void)header_bytes;
    if (header_error) co_return;
    if (parser.get().result() != http::status::ok) {
      core::log_warn("the member driving a run refused to stream its timeline",
                     {{"runId", run_id}, {"url", url}, {"status", std::to_string(parser.get().result_int())}});
      co_return;
    }
    feeds.set_relayed(run_id, true);
    // Beside the reads: the stream is cut once the run is no longer that member's.
    auto progress = std::make_shared<Progress>();
    progress->cursor = base;
    net::co_spawn(executor, watch_driver(url, stream, progress), net::detached);

    SseEvents sse;
    std::vector<char> chunk(64 * 1024);
    while (!parser.is_done()) {
      parser.get().body().data = chunk.data();
      parser.get().body().size = chunk.size();
      stream->expires_after(idle_timeout);
      auto [read_error, read] = co_await http::async_read_some(*stream, buffer, parser, net::as_tuple(net::use_awaitable));
      (void)read;
      if (read_error && read_error != http::error::need_buffer) break;
      const std::size_t got = chunk.size() - parser.get().body().size;
      std::vector<core::TimelineEvent> events;
      sse.feed(std::string_view(chunk.data(), got), [&](std::string_view data) {
        if (auto e = event_of(data); e && e->run_id == run_id) events.push_back(std::move(*e));
      });
      if (events.empty()) continue;
      const std::int64_t before = base;
      for (const auto& e : events)
        if (!e.ephemeral) base = e.cursor;
      progress->cursor = base;
      feeds.publish(run_id, before, std::move(events));
    }
    progress->reading = false;
    beast::error_code ignored;
    stream->socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream->close();
  }

  /// Every look_again_every, while the stream is read: closes it once `url` no longer
  /// drives the run (it ended, or another member took it over). Not at once: the driver
  /// may not have sent, or this thread not yet read, what it wrote before letting go, and
  /// the deltas in it exist nowhere else. So the stream is read on until it has passed
  /// the store's last durable cursor (a delta always precedes the durable event after
  /// it), ends, or drain_at_most has passed (a driver that died without a word).
  net::awaitable<void> watch_driver(std::string url, std::shared_ptr<beast::tcp_stream> stream,
                                    std::shared_ptr<Progress> progress) {
    net::steady_timer timer(co_await net::this_coro::executor);
    while (progress->reading) {
      timer.expires_after(look_again_every);
      co_await timer.async_wait(net::as_tuple(net::use_awaitable));
      if (!progress->reading) co_return;
      if (engine.holder_url(run_id) == url) continue;
      const auto last = engine.timeline_last_cursor(run_id);
      const auto give_up = std::chrono::steady_clock::now() + drain_at_most;
      while (progress->reading && last && progress->cursor < *last && std::chrono::steady_clock::now() < give_up) {
        timer.expires_after(drain_look_every);
        co_await timer.async_wait(net::as_tuple(net::use_awaitable));
      }
      if (progress->reading) stream->close();
      co_return;
    }
  }
};

struct HolderRelay::Registry {
  Registry(engine::Engine& e, std::string t) : engine(e), token(std::move(t)) {}

  engine::Engine& engine;
  std::string token;
  std::mutex mutex;
  bool open = true;
  std::map<std::string, std::unique_ptr<Relay>> relays;
  std::vector<std::unique_ptr<Relay>> stopping;  // stopped, their threads not yet joined

  void release(const std::string& run_id) {
    std::lock_guard lock(mutex);
    auto it = relays.find(run_id);
    if (it == relays.end() || --it->second->followers > 0) return;
    it->second->stop();
    stopping.push_back(std::move(it->second));
    relays.erase(it);
    join_stopped_locked();
  }
  /// Joins the threads of stopped relays that have returned (which takes no time).
  void join_stopped_locked() {
    std::erase_if(stopping, [](std::unique_ptr<Relay>& relay) {
      if (!relay->done) return false;
      relay->thread.join();
      return true;
    });
  }
};

HolderRelay::HolderRelay(engine::Engine& engine, std::string token)
    : registry_(std::make_shared<Registry>(engine, std::move(token))) {}

HolderRelay::~HolderRelay() {
  std::map<std::string, std::unique_ptr<Relay>> relays;
  std::vector<std::unique_ptr<Relay>> stopping;
  {
    std::lock_guard lock(registry_->mutex);
    registry_->open = false;
    relays.swap(registry_->relays);
    stopping.swap(registry_->stopping);
  }
  for (auto& [id, relay] : relays) {
    relay->stop();
    stopping.push_back(std::move(relay));
  }
  for (auto& relay : stopping)
    if (relay->thread.joinable()) relay->thread.join();
}

std::shared_ptr<void> HolderRelay::follow(const std::string& run_id) {
  {
    std::lock_guard lock(registry_->mutex);
    if (!registry_->open) return nullptr;
    registry_->join_stopped_locked();
    auto& relay = registry_->relays[run_id];
    if (!relay) {
      relay = std::make_unique<Relay>(registry_->engine, run_id, registry_->token);
      relay->start();
    }
    ++relay->followers;
  }
  // The handle's end releases the follower, unless the relay has stopped everything.
  std::weak_ptr<Registry> registry = registry_;
  return std::shared_ptr<void>(nullptr, [registry, run_id](void*) {
    if (auto r = registry.lock()) r->release(run_id);
  });
}

}  // namespace agentry::api
