#include "browser/cdp_pipe.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <system_error>

#include "agentry/plugin_common/child_process.hpp"
#include "agentry/plugin_common/spawn.hpp"

namespace agentry::browser {
namespace json = boost::json;
namespace pc = agentry::plugin_common;

namespace {
// A close-on-exec copy of `fd` numbered 10 or above, so dup2 onto 3 and 4 never collides.
int high_copy(int fd) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  if (copy < 0) throw std::system_error(errno, std::generic_category(), "fcntl(F_DUPFD_CLOEXEC)");
  return copy;
}
// Whether a process of group `pgid` is still alive (zombies do not count): SIGKILL is
// delivered at once but a process takes a moment to die, and "no Chromium outlives its
// attempt" means gone, not signalled. /proc/<pid>/stat: "pid (comm) state ppid pgrp ...".
bool group_alive(pid_t pgid) {
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return false;
  bool alive = false;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3) continue;
    if (pgrp == pgid && state != 'Z' && state != 'X') {
      alive = true;
      break;
    }
  }
  ::closedir(dir);
  return alive;
}

}  // namespace

Chromium::Chromium(const std::string& program, const std::vector<std::string>& args,
                   const std::vector<std::string>& env, const std::string& stderr_path, CdpEventHandler on_event)
    : on_event_(std::move(on_event)) {
  pc::Pipe commands = pc::make_pipe();  // we write, Chromium reads on its fd 3
  pc::Pipe output = pc::make_pipe();    // Chromium writes on its fd 4, we read
  pc::Fd child_in(high_copy(commands.read.get()));
  pc::Fd child_out(high_copy(output.write.get()));
  commands.read = pc::Fd();
  output.write = pc::Fd();

  pc::SpawnRequest request;
  request.program = program;
  request.argv = {program};
  request.env = env;
  request.argv.insert(request.argv.end(), args.begin(), args.end());
  request.output_file = stderr_path;
  request.more_fds = {{child_in.get(), 3}, {child_out.get(), 4}};
  pid_ = pc::spawn_in_new_group(request);  // throws std::system_error with the spawn errno
  to_browser_ = commands.write.release();
  from_browser_ = output.read.release();
  reader_ = std::thread([this] { read_loop(); });
}

Chromium::~Chromium() {
  kill_now();
  close(std::chrono::milliseconds(0));
}

void Chromium::read_loop() noexcept {
  pc::block_sigpipe_on_this_thread();
  std::string buffer;
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(from_browser_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nul; (nul = buffer.find('\0', start)) != std::string::npos; start = nul + 1) {
      json::error_code ec;
      json::value v = json::parse(std::string_view(buffer).substr(start, nul - start), ec);
      if (ec || !v.is_object()) continue;
      json::object& m = v.get_object();
      if (const json::value* id = m.if_contains("id"); id && id->is_number()) {
        CdpReply reply;
        if (const json::value* r = m.if_contains("result"); r && r->is_object()) reply.ok = true, reply.result = r->get_object();
        else if (const json::value* e = m.if_contains("error"); e && e->is_object()) {
          const json::value* msg = e->get_object().if_contains("message");
          reply.error = msg && msg->is_string() ? std::string(msg->get_string()) : json::serialize(*e);
        } else reply.ok = true;
        {
          std::lock_guard lock(mutex_);
          replies_[id->to_number<uint64_t>()] = std::move(reply);
        }
        replied_.notify_all();
      } else if (const json::value* method = m.if_contains("method"); method && method->is_string()) {
        const json::value* params = m.if_contains("params");
        const json::value* session = m.if_contains("sessionId");
        try {
          on_event_(std::string(method->get_string()),
                    params && params->is_object() ? params->get_object() : json::object(),
                    session && session->is_string() ? std::string(session->get_string()) : std::string());
        } catch (...) {
        }
      }
    }
    buffer.erase(0, start);
  }
  {
    std::lock_guard lock(mutex_);
    eof_ = true;
  }
  replied_.notify_all();
}

bool Chromium::write_message(const std::string& text) noexcept {
  std::lock_guard lock(write_mutex_);
  if (to_browser_ < 0) return false;
  std::size_t done = 0;
  while (done <= text.size()) {  // the text, then its NUL terminator
    const char* p = done < text.size() ? text.data() + done : "";
    const std::size_t len = done < text.size() ? text.size() - done : 1;
    const ssize_t n = ::write(to_browser_, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void Chromium::send(const std::string& method, json::object params, const std::string& session) {
  uint64_t id;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
  }
  json::object m{{"id", id}, {"method", method}, {"params", std::move(params)}};
  if (!session.empty()) m["sessionId"] = session;
  write_message(json::serialize(m));
}

CdpReply Chromium::call(const std::string& method, json::object params, const std::string& session,
                        std::chrono::milliseconds timeout) {
  pc::block_sigpipe_on_this_thread();
  uint64_t id;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
  }
  json::object m{{"id", id}, {"method", method}, {"params", std::move(params)}};
  if (!session.empty()) m["sessionId"] = session;
  CdpReply out;
  if (!write_message(json::serialize(m))) {
    out.error = "Chromium is gone (the DevTools pipe is closed)";
    return out;
  }
  std::unique_lock lock(mutex_);
  const bool got = replied_.wait_for(lock, timeout, [&] { return replies_.count(id) > 0 || eof_.load(); });
  if (auto it = replies_.find(id); it != replies_.end()) {
    out = std::move(it->second);
    replies_.erase(it);
    return out;
  }
  out.error = got ? "Chromium is gone (the DevTools pipe is closed)"
                  : method + " timed out after " + std::to_string(timeout.count()) + " ms";
  return out;
}

void Chromium::kill_now() noexcept {
  std::lock_guard lock(mutex_);
  if (!reaped_ && pid_ > 1) ::kill(-pid_, SIGKILL);
}

bool Chromium::reap(std::chrono::milliseconds wait) noexcept {
  {
    std::lock_guard lock(mutex_);
    if (reaped_) return true;
  }
  // The wait happens outside the lock: kill_now() takes it from other threads meanwhile.
  int status = 0;
  if (!pc::wait_for_exit(pid_, wait, status)) return false;
  std::lock_guard lock(mutex_);
  ::kill(-pid_, SIGKILL);  // whatever the leader left behind in its group
  reaped_ = true;
  return true;
}

void Chromium::close(std::chrono::milliseconds grace) noexcept {
  if (pid_ <= 1) return;
  if (grace.count() > 0 && !eof_.load()) send("Browser.close", {}, "");
  if (!reap(grace)) {
    kill_now();
    reap(std::chrono::seconds(10));
  }
  for (int i = 0; i < 200 && group_alive(pid_); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  {
    std::lock_guard lock(write_mutex_);
    if (to_browser_ >= 0) ::close(to_browser_), to_browser_ = -1;
  }
  if (reader_.joinable()) reader_.join();  // EOF: every writer in the group is dead
  if (from_browser_ >= 0) ::close(from_browser_), from_browser_ = -1;
}

}  // namespace agentry::browser
