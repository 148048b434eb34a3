// Chromium started with --remote-debugging-pipe, and the DevTools protocol on that pipe:
// Chromium reads commands on its fd 3 and writes replies and events on its fd 4, each
// message one JSON object followed by a NUL byte. Everything happens on the attempt's
// executor: the pipe is read asynchronously, a call completes when the reply with its id
// comes (or its time is up), and Chromium's exit arrives through its pidfd (runtime::Child).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agentry/plugin_common/runtime/child.hpp"

namespace agentry::browser {

struct CdpReply {
  bool ok = false;
  boost::json::object result;
  std::string error;  // when !ok: the protocol's error message, "timed out", "Chromium is gone"
};

struct CdpHandlers {
  // Each protocol event. It may send(), not call(): it is not a coroutine.
  std::function<void(const std::string& method, const boost::json::object& params, const std::string& session)> event;
  std::function<void()> gone;  // the pipe closed or Chromium exited: exited() may have changed
};

class Chromium : public std::enable_shared_from_this<Chromium> {
 public:
  // [executor] Spawns `program` with `args` (argv[0] excluded) in its own process group,
  // stdout and stderr to `stderr_path`. Throws std::system_error (the spawn errno).
  static std::shared_ptr<Chromium> start(const boost::asio::any_io_executor& io, const std::string& program,
                                         const std::vector<std::string>& args, const std::vector<std::string>& env,
                                         const std::string& stderr_path, CdpHandlers handlers);
  ~Chromium();  // the child's own destructor kills what is left of the group
  Chromium(const Chromium&) = delete;
  Chromium& operator=(const Chromium&) = delete;

  // [executor] A command and its reply; never throws for a protocol or pipe failure.
  boost::asio::awaitable<CdpReply> call(const std::string& method, boost::json::object params,
                                        const std::string& session, std::chrono::milliseconds timeout);
  // [executor] A command whose reply nobody waits for (frame acks).
  void send(const std::string& method, boost::json::object params, const std::string& session);
  // [executor] SIGKILL to the whole group at once (interrupt); close() still follows.
  void kill_now() noexcept;
  // [executor] Asks for a clean exit (Browser.close, so the profile is flushed), waits up
  // to `grace`, then kills the group; returns once no process of the group is left.
  boost::asio::awaitable<void> close(std::chrono::milliseconds grace);
  bool exited() const noexcept { return eof_; }  // the DevTools pipe is closed

 private:
  struct Pending {
    boost::asio::steady_timer timer;  // cancelled when the reply comes or the pipe closes
    std::optional<CdpReply> reply;
  };

  Chromium(const boost::asio::any_io_executor& io, CdpHandlers handlers);
  void read_next();
  void dispatch(std::string_view message);
  void write_next();
  bool write(std::string message);
  void closed();
  boost::asio::awaitable<bool> wait_exit(std::chrono::milliseconds timeout);

  boost::asio::any_io_executor io_;
  CdpHandlers handlers_;
  std::shared_ptr<plugin_common::runtime::Child> child_;
  boost::asio::posix::stream_descriptor to_browser_, from_browser_;
  std::string inbox_, chunk_;
  std::deque<std::string> outbox_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Pending*> pending_;  // each lives in its call()'s frame
  boost::asio::steady_timer* exit_waiter_ = nullptr;
  bool eof_ = false, write_failed_ = false, child_exited_ = false;
};

}  // namespace agentry::browser
