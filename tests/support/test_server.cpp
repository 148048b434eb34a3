#include "support/test_server.hpp"

#include <array>
#include <cerrno>
#include <stdexcept>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "support/http_wire.hpp"

namespace agentry::test {

namespace {

std::string_view strip_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

bool ServerConnection::wait_readable(Clock::time_point deadline) {
  for (;;) {
    if (server_.stopping_) return false;
    std::array<pollfd, 2> fds{{{fd_, POLLIN, 0}, {server_.wake_read_.get(), POLLIN, 0}}};
    const int rc = ::poll(fds.data(), fds.size(), remaining_ms(deadline));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) return false;
    if (fds[1].revents != 0) return false;
    return true;
  }
}

std::optional<ReceivedRequest> ServerConnection::read_request(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::array<char, 8192> buf{};
  auto fill = [&] {
    if (!wait_readable(deadline)) return false;
    const auto n = recv_some(fd_, buf.data(), buf.size(), deadline);
    if (!n || *n == 0) return false;
    buffered_.append(buf.data(), *n);
    return true;
  };
  std::optional<std::size_t> end;
  while (!(end = find_head_end(buffered_))) {
    if (!fill()) return std::nullopt;
  }
  ReceivedRequest req;
  std::string_view head = std::string_view(buffered_).substr(0, *end);
  const auto first_lf = head.find('\n');
  const std::string_view request_line = strip_cr(head.substr(0, first_lf));
  const auto sp1 = request_line.find(' ');
  const auto sp2 = request_line.find(' ', sp1 + 1);
  req.method = request_line.substr(0, sp1);
  req.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view rest = head.substr(first_lf + 1);
  while (!rest.empty()) {
    const auto lf = rest.find('\n');
    const std::string_view line = strip_cr(rest.substr(0, lf));
    rest.remove_prefix(lf == std::string_view::npos ? rest.size() : lf + 1);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    req.headers[to_lower(line.substr(0, colon))] = value;
  }
  buffered_.erase(0, *end);
  std::size_t length = 0;
  if (const auto cl = req.headers.find("content-length"); cl != req.headers.end()) {
    length = std::stoul(cl->second);
  }
  while (buffered_.size() < length) {
    if (!fill()) return std::nullopt;
  }
  req.body = buffered_.substr(0, length);
  buffered_.erase(0, length);
  {
    const std::lock_guard lock(server_.mutex_);
    server_.requests_.push_back(req);
  }
  return req;
}

std::string ServerConnection::read_until_eof(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string out = std::exchange(buffered_, {});
  std::array<char, 8192> buf{};
  while (wait_readable(deadline)) {
    const auto n = recv_some(fd_, buf.data(), buf.size(), deadline);
    if (!n || *n == 0) break;
    out.append(buf.data(), *n);
  }
  return out;
}

void ServerConnection::send(std::string_view bytes) {
  (void)send_all(fd_, bytes, Clock::now() + std::chrono::seconds(5));
}

void ServerConnection::pause(std::chrono::milliseconds duration) {
  const auto deadline = Clock::now() + duration;
  while (!server_.stopping_ && Clock::now() < deadline) {
    pollfd p{server_.wake_read_.get(), POLLIN, 0};
    if (::poll(&p, 1, remaining_ms(deadline)) > 0) return;
  }
}

bool ServerConnection::wait_for_peer_close(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::array<char, 8192> buf{};
  while (wait_readable(deadline)) {
    const auto n = recv_some(fd_, buf.data(), buf.size(), deadline);
    if (!n) return false;
    if (*n == 0) return true;
  }
  return false;
}

TestServer::TestServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!listen_fd_) throw std::runtime_error(errno_message("socket", errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listen_fd_.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_.get(), 16) != 0) {
    throw std::runtime_error(errno_message("bind/listen 127.0.0.1:0", errno));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error(errno_message("pipe2", errno));
  wake_read_.reset(pipe_fds[0]);
  wake_write_.reset(pipe_fds[1]);
  thread_ = std::thread([this] { run(); });
}

TestServer::~TestServer() {
  stopping_ = true;
  const char byte = 'x';
  (void)::write(wake_write_.get(), &byte, 1);
  thread_.join();
}

std::vector<ReceivedRequest> TestServer::requests() const {
  const std::lock_guard lock(mutex_);
  return requests_;
}

void TestServer::run() {
  while (!stopping_) {
    std::array<pollfd, 2> fds{{{listen_fd_.get(), POLLIN, 0}, {wake_read_.get(), POLLIN, 0}}};
    const int rc = ::poll(fds.data(), fds.size(), -1);
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0 || fds[1].revents != 0) return;
    UniqueFd conn(::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!conn) continue;
    ++connections_;
    ServerConnection connection(conn.get(), *this);
    try {
      handler_(connection);
    } catch (const std::exception&) {
      // A failing handler just drops the connection; the client-side assertion reports it.
    }
  }
}

}  // namespace agentry::test
