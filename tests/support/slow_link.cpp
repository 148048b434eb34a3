#include "support/slow_link.hpp"

#include <deque>
#include <stdexcept>
#include <utility>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace agentry::test {
namespace {

constexpr auto tick = std::chrono::milliseconds(20);  // how soon a stop is noticed

}  // namespace

SlowLink::SlowLink(std::chrono::milliseconds delay) : delay_(delay) {
  listener_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (!listener_ || ::bind(listener_.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener_.get(), 16) != 0 ||
      ::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw std::runtime_error(errno_message("cannot listen on 127.0.0.1", errno));
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

SlowLink::~SlowLink() {
  stopping_ = true;
  acceptor_.join();
  std::lock_guard lock(mutex_);
  for (auto& t : connections_) t.join();
}

std::string SlowLink::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

void SlowLink::accept_loop() {
  while (!stopping_) {
    pollfd p{listener_.get(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(tick.count())) <= 0) continue;
    UniqueFd client(::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!client) continue;
    std::lock_guard lock(mutex_);
    connections_.emplace_back([this, c = std::move(client)]() mutable { forward(std::move(c)); });
  }
}

void SlowLink::forward(UniqueFd client) {
  const auto target_port = target_.load();
  if (target_port == 0) return;
  UniqueFd target;
  try {
    target = connect_tcp("127.0.0.1", target_port, Clock::now() + std::chrono::seconds(2));
  } catch (const std::exception&) {
    return;
  }
  struct Late {
    Clock::time_point due;
    std::string bytes;
  };
  std::deque<Late> back;  // from the target, not yet due
  bool target_open = true;
  char buffer[64 * 1024];
  while (!stopping_) {
    auto wait = tick;
    if (!back.empty())
      wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(back.front().due - Clock::now()));
    pollfd fds[2] = {{client.get(), POLLIN, 0}, {target.get(), static_cast<short>(target_open ? POLLIN : 0), 0}};
    ::poll(fds, 2, static_cast<int>(std::max<std::int64_t>(wait.count(), 0)));
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const auto got = ::recv(client.get(), buffer, sizeof buffer, 0);
      if (got <= 0) return;  // the client left: so does the link
      if (send_all(target.get(), std::string_view(buffer, static_cast<std::size_t>(got)),
                   Clock::now() + std::chrono::seconds(5)) != SendResult::ok)
        return;
    }
    if (target_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      const auto got = ::recv(target.get(), buffer, sizeof buffer, 0);
      if (got > 0) back.push_back({Clock::now() + delay_, std::string(buffer, static_cast<std::size_t>(got))});
      else target_open = false;
    }
    while (!back.empty() && back.front().due <= Clock::now()) {
      if (send_all(client.get(), back.front().bytes, Clock::now() + std::chrono::seconds(5)) != SendResult::ok)
        return;
      back.pop_front();
    }
    if (!target_open && back.empty()) return;  // the target closed, and all it sent is through
  }
}

}  // namespace agentry::test
