#include "browser/cdp_pipe.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <system_error>

#include "agentry/plugin_common/child_process.hpp"

namespace agentry::browser {
namespace json = boost::json;
namespace pc = agentry::plugin_common;

namespace {
void check(int err, const char* what) {
  if (err != 0) throw std::system_error(err, std::generic_category(), what);
}
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

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  struct Cleanup {
    posix_spawn_file_actions_t* a;
    posix_spawnattr_t* t;
    ~Cleanup() {
      posix_spawn_file_actions_destroy(a);
      posix_spawnattr_destroy(t);
    }
  } cleanup{&actions, &attr};
  check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "addopen");
  check(posix_spawn_file_actions_addopen(&actions, 1, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600),
        "addopen");
  check(posix_spawn_file_actions_adddup2(&actions, 1, 2), "adddup2");
  check(posix_spawn_file_actions_adddup2(&actions, child_in.get(), 3), "adddup2");
  check(posix_spawn_file_actions_adddup2(&actions, child_out.get(), 4), "adddup2");
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  check(posix_spawnattr_setsigdefault(&attr, &all), "setsigdefault");
  check(posix_spawnattr_setsigmask(&attr, &none), "setsigmask");
  check(posix_spawnattr_setpgroup(&attr, 0), "setpgroup");
  check(posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK),
        "setflags");
  std::vector<std::string> argv_s{program};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv, envp;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_copy = env;
  for (auto& e : env_copy) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  check(posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data()), "posix_spawn");
  pid_ = pid;
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
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (reaped_) return true;
      int status = 0;
      const pid_t got = ::waitpid(pid_, &status, WNOHANG);
      if (got == pid_ || (got < 0 && errno == ECHILD)) {
        ::kill(-pid_, SIGKILL);  // whatever the leader left behind in its group
        reaped_ = true;
        return true;
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
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
