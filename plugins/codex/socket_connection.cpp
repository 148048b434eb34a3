// A codex app-server that someone else runs: WebSocket over TCP (--listen ws://) or over
// a Unix socket (--listen unix://, the same HTTP Upgrade handshake), on the runtime's
// WebSocket client. One JSON-RPC message per text message.
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <future>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "agentry/plugin_common/child_process.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "agentry/plugin_common/runtime/websocket.hpp"
#include "connection.hpp"

namespace agentry::codex {

namespace pc = agentry::plugin_common;
namespace rt = agentry::plugin_common::runtime;

namespace {

// A connection on the runtime's WebSocket client, adapted to the session's poll(): the
// client runs on an executor of its own, and an eventfd says when messages wait.
class SocketConnection final : public Connection {
 public:
  SocketConnection(rt::WebSocketTarget target, int timeout_ms, std::string name) : name_(std::move(name)) {
    wake_ = pc::Fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (wake_.get() < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
    std::promise<std::string> ready;
    std::future<std::string> connected = ready.get_future();
    auto settled = std::make_shared<std::atomic<bool>>(false);
    rt::WebSocketHandlers handlers;
    handlers.ready = [&ready, settled](std::string error) {
      if (!settled->exchange(true)) ready.set_value(std::move(error));
    };
    handlers.message = [this](std::string text) { arrived(std::move(text), false, {}); };
    handlers.closed = [this](std::string reason) { arrived({}, true, std::move(reason)); };
    executor_.post([&, handlers = std::move(handlers)]() mutable {
      client_ = rt::connect_websocket(executor_.context(), std::move(target), std::chrono::milliseconds(timeout_ms),
                                      std::move(handlers));
    });
    const std::string error = connected.get();  // the client's own deadline bounds the wait
    if (!error.empty()) {
      executor_.stop_after([this] { let_go_of_client(); });
      throw std::runtime_error("cannot connect to codex app-server at " + name_ + ": " + error);
    }
  }
  ~SocketConnection() override {
    close();
    executor_.stop_after([this] { let_go_of_client(); });
  }

  int fd() const noexcept override { return wake_.get(); }

  Incoming read_some() override {
    uint64_t count = 0;
    [[maybe_unused]] const ssize_t n = ::read(wake_.get(), &count, sizeof count);
    std::lock_guard lock(mutex_);
    Incoming in{std::move(inbox_), closed_};
    inbox_.clear();
    return in;
  }

  void send(std::string_view message) override {
    {
      std::lock_guard lock(mutex_);
      if (closed_) throw std::runtime_error("the connection to codex app-server at " + name_ + " is closed");
    }
    executor_.post([this, text = std::string(message)]() mutable {
      if (client_) client_->send(std::move(text));
    });
  }

  void close() noexcept override {
    if (close_asked_.exchange(true)) return;
    try {
      executor_.post([this] {
        if (client_) client_->close();
      });
    } catch (...) {
    }
  }

  std::string end_reason() override {
    std::lock_guard lock(mutex_);
    return "lost the connection to codex app-server at " + name_ + (reason_.empty() ? "" : ": " + reason_);
  }

 private:
  // [executor] Before the executor stops: what the client's pending operations still hold
  // goes with the io_context, and nothing calls back into this connection.
  void let_go_of_client() noexcept {
    if (!client_) return;
    client_->forget_handlers();
    client_.reset();
  }

  // [executor] A message, or the end; the session's poll() wakes.
  void arrived(std::string text, bool closed, std::string reason) {
    {
      std::lock_guard lock(mutex_);
      if (closed) {
        closed_ = true;
        reason_ = std::move(reason);
      } else {
        inbox_.push_back(std::move(text));
      }
    }
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_.get(), &one, sizeof one);
  }

  std::string name_;
  pc::Fd wake_;
  std::atomic<bool> close_asked_{false};
  std::mutex mutex_;  // guards what the executor hands over
  std::vector<std::string> inbox_;
  bool closed_ = false;
  std::string reason_;
  std::shared_ptr<rt::WebSocketClient> client_;  // executor only
  rt::Executor executor_;                        // last: stopped first
};

}  // namespace

std::unique_ptr<Connection> open_socket(Transport transport, const SocketTarget& target, int timeout_ms) {
  rt::WebSocketTarget ws{target.host, target.port, {}, target.path, {}, target.bearer_token};
  if (transport == Transport::uds) {
    ws.unix_path = target.socket_path;
    ws.host_header = target.host;
    return std::make_unique<SocketConnection>(std::move(ws), timeout_ms, "unix:" + target.socket_path);
  }
  const bool ipv6 = target.host.find(':') != std::string::npos;
  ws.host_header = (ipv6 ? "[" + target.host + "]" : target.host) + ":" + target.port;
  const std::string name = "ws://" + ws.host_header + target.path;
  return std::make_unique<SocketConnection>(std::move(ws), timeout_ms, name);
}

}  // namespace agentry::codex
