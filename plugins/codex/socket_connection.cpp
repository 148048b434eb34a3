// A codex app-server that someone else runs: WebSocket over TCP (--listen ws://) or over
// a Unix socket (--listen unix://, the same HTTP Upgrade handshake). One JSON-RPC message
// per text frame.
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "connection.hpp"
#include "websocket.hpp"

namespace agentry::codex {

namespace pc = agentry::plugin_common;

namespace {

std::string errno_text() { return std::strerror(errno); }

// connect() bounded by `timeout_ms`: a blocking connect to an unreachable host could take
// minutes of SYN retries, and the attempt's thread must stay responsive.
bool connect_within(int fd, const sockaddr* address, socklen_t length, int timeout_ms, std::string& error) {
  const int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc = ::connect(fd, address, length);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    do {
      rc = ::poll(&p, 1, timeout_ms);
    } while (rc < 0 && errno == EINTR);
    if (rc == 0) {
      error = "timed out after " + std::to_string(timeout_ms) + " ms";
      return false;
    }
    int so_error = 0;
    socklen_t size = sizeof so_error;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &size);
    rc = so_error == 0 ? 0 : -1;
    errno = so_error;
  }
  if (rc != 0) {
    error = errno_text();
    return false;
  }
  ::fcntl(fd, F_SETFL, flags);  // blocking again: the session polls before reading
  return true;
}

pc::Fd connect_tcp(const SocketTarget& target, int timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(target.host.c_str(), target.port.c_str(), &hints, &found); rc != 0)
    throw std::runtime_error("cannot resolve " + target.host + ": " + ::gai_strerror(rc));
  std::string error = "no address";
  pc::Fd fd;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    pc::Fd candidate(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (candidate.get() < 0) {
      error = errno_text();
      continue;
    }
    if (connect_within(candidate.get(), a->ai_addr, a->ai_addrlen, timeout_ms, error)) {
      fd = std::move(candidate);
      break;
    }
  }
  ::freeaddrinfo(found);
  if (fd.get() < 0)
    throw std::runtime_error("cannot connect to codex app-server at ws://" + target.host + ":" + target.port + ": " +
                             error);
  return fd;
}

pc::Fd connect_unix(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) throw std::runtime_error("socket path too long: " + path);
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  pc::Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) throw std::runtime_error("socket(AF_UNIX): " + errno_text());
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
    throw std::runtime_error("cannot connect to codex app-server at unix socket " + path + ": " + errno_text());
  return fd;
}

class SocketConnection final : public Connection {
 public:
  SocketConnection(pc::Fd fd, const ws::Handshake& handshake, int timeout_ms, std::string name)
      : client_(std::move(fd), handshake, timeout_ms), name_(std::move(name)) {}
  ~SocketConnection() override { close(); }

  int fd() const noexcept override { return client_.fd(); }

  Incoming read_some() override {
    ws::ReadResult read = client_.read_some();
    if (read.closed) reason_ = read.close_reason;
    return Incoming{std::move(read.messages), read.closed};
  }

  void send(std::string_view message) override { client_.send_text(message); }
  void close() noexcept override { client_.close(); }
  std::string end_reason() override {
    return "lost the connection to codex app-server at " + name_ + (reason_.empty() ? "" : ": " + reason_);
  }

 private:
  ws::Client client_;
  std::string name_;
  std::string reason_;
};

}  // namespace

std::unique_ptr<Connection> open_socket(Transport transport, const SocketTarget& target, int timeout_ms) {
  ws::Handshake handshake{target.host, target.path, target.bearer_token};
  if (transport == Transport::uds)
    return std::make_unique<SocketConnection>(connect_unix(target.socket_path), handshake, timeout_ms,
                                              "unix:" + target.socket_path);
  const bool ipv6 = target.host.find(':') != std::string::npos;
  handshake.host = (ipv6 ? "[" + target.host + "]" : target.host) + ":" + target.port;
  return std::make_unique<SocketConnection>(connect_tcp(target, timeout_ms), handshake, timeout_ms,
                                            "ws://" + handshake.host + target.path);
}

}  // namespace agentry::codex
