// Chromium started with --remote-debugging-pipe, and the DevTools protocol on that pipe:
// Chromium reads commands on its fd 3 and writes replies and events on its fd 4, each
// message one JSON object followed by a NUL byte. A reader thread matches replies to
// calls by id and hands events to a callback (on the reader thread: it must not call()).
#pragma once

#include <sys/types.h>

#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace agentry::browser {

struct CdpReply {
  bool ok = false;
  boost::json::object result;
  std::string error;  // when !ok: the protocol's error message, "timed out", "Chromium exited"
};

using CdpEventHandler =
    std::function<void(const std::string& method, const boost::json::object& params, const std::string& session)>;

class Chromium {
 public:
  // Spawns `program` with `args` (argv[0] excluded) in its own process group, stderr to
  // `stderr_path`. Throws std::system_error (with the spawn errno) when it cannot start.
  Chromium(const std::string& program, const std::vector<std::string>& args, const std::vector<std::string>& env,
           const std::string& stderr_path, CdpEventHandler on_event);
  // Kills the group, reaps it, joins the reader.
  ~Chromium();
  Chromium(const Chromium&) = delete;
  Chromium& operator=(const Chromium&) = delete;

  // [any thread but the reader] Sends a command and waits for its reply.
  CdpReply call(const std::string& method, boost::json::object params, const std::string& session,
                std::chrono::milliseconds timeout);
  // [any thread] Sends a command without waiting (frame acks from the event callback).
  void send(const std::string& method, boost::json::object params, const std::string& session);
  // [any thread] SIGKILL to the whole group at once (interrupt); reaping stays with close().
  void kill_now() noexcept;
  // Asks for a clean exit (Browser.close, so the profile is flushed), waits up to `grace`,
  // then kills the group; reaps. Idempotent.
  void close(std::chrono::milliseconds grace) noexcept;
  bool exited() const noexcept { return eof_.load(); }
  pid_t pid() const noexcept { return pid_; }

 private:
  void read_loop() noexcept;
  bool write_message(const std::string& text) noexcept;
  bool reap(std::chrono::milliseconds wait) noexcept;

  pid_t pid_ = -1;
  int to_browser_ = -1;
  int from_browser_ = -1;
  CdpEventHandler on_event_;
  std::mutex write_mutex_;
  std::mutex mutex_;  // ids, replies, pid state
  std::condition_variable replied_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, CdpReply> replies_;
  std::atomic<bool> eof_{false};
  bool reaped_ = false;
  std::thread reader_;
};

}  // namespace agentry::browser
