#include "support/socket_io.hpp"

#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace agentry::test {

void UniqueFd::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);  // never retry close on EINTR: the fd is gone on Linux
  fd_ = fd;
}

std::string errno_message(std::string_view what, int err) {
  std::string out(what);
  out += ": ";
  out += std::strerror(err);
  return out;
}

int remaining_ms(Clock::time_point deadline) {
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return left > INT_MAX ? INT_MAX : static_cast<int>(left);
}

int free_loopback_port() {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (!fd || ::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error(errno_message("cannot find a free port on 127.0.0.1", errno));
  }
  return ntohs(address.sin_port);
}

namespace {

// poll() one fd until `events` or the deadline; EINTR restarts with the remaining time.
// Returns false on timeout.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int rc = ::poll(&p, 1, remaining_ms(deadline));
    if (rc > 0) return true;
    if (rc == 0) return false;
    if (errno != EINTR) throw std::runtime_error(errno_message("poll", errno));
  }
}

std::string endpoint(const std::string& host, std::uint16_t port) {
  return host + ":" + std::to_string(port);
}

UniqueFd try_connect(const addrinfo& ai, Clock::time_point deadline, int& err, int rcvbuf) {
  UniqueFd fd(::socket(ai.ai_family, ai.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                       ai.ai_protocol));
  if (!fd) {
    err = errno;
    return {};
  }
  const int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // Before connect(), so that the window offered in the handshake already reflects it.
  if (rcvbuf > 0) ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  if (::connect(fd.get(), ai.ai_addr, ai.ai_addrlen) == 0) return fd;
  if (errno != EINPROGRESS && errno != EINTR) {
    err = errno;
    return {};
  }
  if (!wait_for(fd.get(), POLLOUT, deadline)) {
    err = ETIMEDOUT;
    return {};
  }
  int so_error = 0;
  socklen_t len = sizeof so_error;
  if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &len) != 0) so_error = errno;
  if (so_error != 0) {
    err = so_error;
    return {};
  }
  return fd;
}

}  // namespace

UniqueFd connect_tcp(const std::string& host, std::uint16_t port, Clock::time_point deadline) {
  return connect_tcp(host, port, deadline, 0);
}

UniqueFd connect_tcp(const std::string& host, std::uint16_t port, Clock::time_point deadline,
                     int rcvbuf) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* list = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &list); rc != 0) {
    throw std::runtime_error("cannot resolve " + host + ": " + ::gai_strerror(rc));
  }
  int err = 0;
  UniqueFd fd;
  for (const addrinfo* ai = list; ai != nullptr && !fd; ai = ai->ai_next) {
    fd = try_connect(*ai, deadline, err, rcvbuf);
  }
  ::freeaddrinfo(list);
  if (!fd) throw std::runtime_error(errno_message("cannot connect to " + endpoint(host, port), err));
  return fd;
}

UniqueFd connect_unix(const std::string& path, Clock::time_point deadline) {
  const std::string where = "unix://" + path;
  sockaddr_un address{};
  if (path.size() >= sizeof address.sun_path)
    throw std::runtime_error("cannot connect to " + where + ": the path is too long for a socket");
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) throw std::runtime_error(errno_message("cannot connect to " + where, errno));
  // A full backlog answers EAGAIN to a non-blocking connect: try again until the deadline.
  for (;;) {
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) return fd;
    if (errno == EINTR) continue;
    if (errno != EAGAIN || Clock::now() >= deadline)
      throw std::runtime_error(errno_message("cannot connect to " + where, errno));
    ::poll(nullptr, 0, 5);
  }
}

UniqueFd connect_stream(const std::string& host, std::uint16_t port, Clock::time_point deadline) {
  return !host.empty() && host[0] == '/' ? connect_unix(host, deadline) : connect_tcp(host, port, deadline);
}

std::string host_header(const std::string& host, std::uint16_t port) {
  return !host.empty() && host[0] == '/' ? "localhost" : host + ":" + std::to_string(port);
}

SendResult send_all(int fd, std::string_view data, Clock::time_point deadline) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n >= 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EPIPE || errno == ECONNRESET) return SendResult::peer_closed;
    if (errno != EAGAIN && errno != EWOULDBLOCK) throw std::runtime_error(errno_message("send", errno));
    if (!wait_for(fd, POLLOUT, deadline)) return SendResult::timed_out;
  }
  return SendResult::ok;
}

std::optional<std::size_t> recv_some(int fd, char* buf, std::size_t size,
                                     Clock::time_point deadline) {
  for (;;) {
    const ssize_t n = ::read(fd, buf, size);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EINTR) continue;
    if (errno == ECONNRESET) return 0;
    if (errno != EAGAIN && errno != EWOULDBLOCK) throw std::runtime_error(errno_message("recv", errno));
    if (!wait_for(fd, POLLIN, deadline)) return std::nullopt;
  }
}

}  // namespace agentry::test
