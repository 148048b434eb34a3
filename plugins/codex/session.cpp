#include "session.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <system_error>
#include <vector>

#include "agentry/plugin/events.h"
#include "agentry/plugin_common/child_process.hpp"
#include "session_driver.hpp"

namespace agentry::codex {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;


Session::Session(agentry::plugin::Host& host, AttemptConfig config) : host_(host), config_(std::move(config)) {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

Session::~Session() {
  join();
  ::close(wake_fd_);
}

void Session::start() {
  running_.store(true);
  try {
    thread_ = std::thread([this] { main(); });
  } catch (...) {
    running_.store(false);
    throw;
  }
}

void Session::main() noexcept {
  plugin_common::block_sigpipe_on_this_thread();  // a dead app-server's stdin gives EPIPE
  Driver driver(*this);
  driver.run();
}

void Session::post(Command command) {
  {
    std::lock_guard lock(mutex_);
    commands_.push_back(std::move(command));
  }
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t ignored = ::write(wake_fd_, &one, sizeof one);
}

void Session::interrupt(std::string reason) { post(Command{Command::Kind::interrupt, std::move(reason), {}, {}}); }

agentry_status_t Session::detach(std::string reason) {
  // Only a turn codex knows of can be found again: once turn/start is sent (the driver
  // lets go when codex names the turn). An adopting attempt may also let go before it
  // sends anything. Pending approvals need no answer: codex asks them again of whoever
  // resumes the thread.
  if (config_.transport == Transport::stdio || !(turn_requested_.load() || config_.adopt))
    return AGENTRY_ERR_UNSUPPORTED;
  post(Command{Command::Kind::detach, std::move(reason), {}, {}});
  return AGENTRY_OK;
}

void Session::send_message(std::string text) { post(Command{Command::Kind::message, std::move(text), {}, {}}); }

agentry_status_t Session::answer_approval(const std::string& approval_id, bool approve) {
  PendingApproval pending;
  {
    std::lock_guard lock(mutex_);
    const auto it = approvals_.find(approval_id);
    if (it == approvals_.end()) return AGENTRY_ERR_NOT_FOUND;
    pending = std::move(it->second);
    approvals_.erase(it);
  }
  post(Command{Command::Kind::reply,
               {},
               pending.rpc_id,
               approval_result(pending.legacy, approve ? Decision::accept : Decision::decline)});
  return AGENTRY_OK;
}

void Session::join() noexcept {
  if (!thread_.joinable()) return;
  if (running_.load()) post(Command{Command::Kind::stop, {}, {}, {}});
  thread_.join();
}

}  // namespace agentry::codex
