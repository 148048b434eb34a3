// One attempt of the codex backend: a thread that owns the connection to app-server and
// speaks the protocol (initialize, thread/start or thread/resume, turn/start, then the
// turn's notifications and server requests until turn/completed). An adopting attempt
// instead reads the thread (thread/read) and follows its running turn (thread/resume), or
// reports how the turn ended while nobody was connected. The control context
// talks to it through a command queue and an eventfd, so no control call ever blocks on
// codex.
#pragma once

#include <atomic>
#include <boost/json/value.hpp>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "agentry/plugin/cpp/host.hpp"
#include "approvals.hpp"
#include "config.hpp"

namespace agentry::codex {

class Session {
 public:
  Session(agentry::plugin::Host& host, AttemptConfig config);
  ~Session();  // stop() and join
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Starts the attempt's thread; it ends with exactly one FINISHED. Throws std::system_error.
  void start();

  // True until FINISHED is on its way to the host.
  bool running() const noexcept { return running_.load(); }

  // [control] turn/interrupt (now, or as soon as the turn has an id). Idempotent.
  void interrupt(std::string reason);
  // [control] Close the connection and leave the turn running in the app-server; FINISHED
  // {"outcome":"detached"} follows. AGENTRY_ERR_UNSUPPORTED when the turn could not go on
  // without us (stdio: the app-server is our child) or could not be found again (codex
  // has not confirmed it yet).
  agentry_status_t detach(std::string reason);
  // [control] A user message for the running turn (turn/steer).
  void send_message(std::string text);
  // [control] AGENTRY_ERR_NOT_FOUND when no request with that id waits.
  agentry_status_t answer_approval(const std::string& approval_id, bool approve);

  // Waits for the thread; if it still runs (a host that destroys a running instance),
  // it is stopped without a FINISHED.
  void join() noexcept;

 private:
  struct Command {
    enum class Kind { interrupt, detach, message, reply, stop } kind;
    std::string text;
    boost::json::value rpc_id;
    boost::json::value result;
  };
  struct PendingApproval {
    boost::json::value rpc_id;
    bool legacy = false;
  };
  class Driver;  // the thread's state (session.cpp)

  void post(Command command);
  void main() noexcept;

  agentry::plugin::Host& host_;
  AttemptConfig config_;
  std::atomic<bool> running_{false};
  std::atomic<bool> turn_requested_{false};  // turn/start is sent
  int wake_fd_ = -1;  // eventfd: commands are queued
  std::mutex mutex_;
  std::deque<Command> commands_;
  std::map<std::string, PendingApproval> approvals_;  // by approvalId, waiting for send_input
  std::thread thread_;
};

}  // namespace agentry::codex
