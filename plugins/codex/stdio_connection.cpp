// Our own `codex app-server` child: JSON-RPC as JSON lines on its stdin/stdout, its
// stderr (tracing logs) kept as a short tail for error messages.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "agentry/plugin_common/child_process.hpp"
#include "agentry/plugin_common/line_splitter.hpp"
#include "agentry/plugin_common/spawn.hpp"
#include "connection.hpp"

namespace agentry::codex {

namespace pc = agentry::plugin_common;

namespace {

constexpr std::size_t kMaxLine = 64u * 1024 * 1024;  // a whole JSON-RPC message
constexpr std::size_t kMaxLogLine = 4096;
constexpr std::size_t kLogTail = 8;

// ANSI colour codes out of a log line (codex colours its tracing output).
std::string strip_ansi(const std::string& line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !(line[i] >= '@' && line[i] <= '~')) ++i;
      continue;
    }
    out.push_back(line[i]);
  }
  return out;
}

class StdioConnection final : public Connection {
 public:
  StdioConnection(const StdioLaunch& launch, const std::string& cwd, int grace_ms) : grace_ms_(grace_ms) {
    pc::Pipe in = pc::make_pipe();
    pc::Pipe out = pc::make_pipe();
    pc::Pipe err = pc::make_pipe();
    pc::SpawnRequest request{launch.program, launch.argv,     launch.env,     cwd,
                             in.read.get(),  out.write.get(), err.write.get(), {},            {}};
    try {
      pid_ = pc::spawn_in_new_group(request);
    } catch (const std::system_error& e) {
      throw std::runtime_error("cannot start '" + launch.program + "': " + std::strerror(e.code().value()));
    }
    stdin_ = std::move(in.write);
    stdout_ = std::move(out.read);
    stderr_ = std::move(err.read);
  }  // the child's ends close here

  ~StdioConnection() override { close(); }

  int fd() const noexcept override { return stdout_.get(); }
  int log_fd() const noexcept override { return stderr_.get(); }

  Incoming read_some() override {
    Incoming in;
    char chunk[64 * 1024];
    const ssize_t n = ::read(stdout_.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) return in;
    if (n <= 0) {
      in.closed = true;
      if (std::optional<pc::Line> rest = out_lines_.finish(); rest && !rest->text.empty())
        in.messages.push_back(std::move(rest->text));
      return in;
    }
    for (pc::Line& line : out_lines_.feed(std::string_view(chunk, static_cast<std::size_t>(n)))) {
      if (line.dropped > 0) {
        remember("(a protocol line of " + std::to_string(line.text.size() + line.dropped) + " bytes was dropped)");
        continue;
      }
      if (!line.text.empty()) in.messages.push_back(std::move(line.text));
    }
    return in;
  }

  std::vector<std::string> read_log() override {
    std::vector<std::string> lines;
    char chunk[16 * 1024];
    const ssize_t n = ::read(stderr_.get(), chunk, sizeof chunk);
    if (n <= 0) {
      if (n == 0 || errno != EINTR) stderr_ = pc::Fd();  // EOF: stop polling it
      return lines;
    }
    for (pc::Line& line : err_lines_.feed(std::string_view(chunk, static_cast<std::size_t>(n)))) {
      std::string text = strip_ansi(line.text);
      if (text.empty()) continue;
      remember(text);
      lines.push_back(std::move(text));
    }
    return lines;
  }

  void send(std::string_view message) override {
    if (stdin_.get() < 0) throw std::runtime_error("codex app-server's stdin is closed");
    std::string line(message);
    line.push_back('\n');
    std::string_view rest(line);
    while (!rest.empty()) {
      const ssize_t n = ::write(stdin_.get(), rest.data(), rest.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(std::string("writing to codex app-server failed: ") + std::strerror(errno));
      }
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  // stdin EOF asks app-server to exit; SIGTERM then SIGKILL if it lingers (the group,
  // so commands it started go too).
  void close() noexcept override {
    if (pid_ <= 0) return;
    stdin_ = pc::Fd();
    int status = 0;
    if (pc::wait_for_exit(pid_, std::chrono::milliseconds(grace_ms_), status))
      pc::kill_group(pid_, SIGKILL);  // anything it left in its group
    else
      status = pc::terminate_group(pid_, grace_ms_);
    status_ = status;
    pid_ = -1;
  }

  std::string end_reason() override {
    if (pid_ > 0) {  // stdout closed: give the process a moment to exit and be reaped
      if (int status = 0; pc::wait_for_exit(pid_, std::chrono::milliseconds(1000), status)) {
        status_ = status;
        pc::kill_group(pid_, SIGKILL);
        pid_ = -1;
      }
    }
    while (stderr_.get() >= 0) read_log();  // its last words
    std::string reason = "codex app-server ";
    if (!status_)
      reason += "closed its output";
    else if (WIFEXITED(*status_))
      reason += "exited with code " + std::to_string(WEXITSTATUS(*status_));
    else if (WIFSIGNALED(*status_))
      reason += "was killed by signal " + std::to_string(WTERMSIG(*status_));
    else
      reason += "ended";
    if (!tail_.empty()) reason += ": " + tail_.back();
    return reason;
  }

 private:
  void remember(std::string line) {
    tail_.push_back(std::move(line));
    if (tail_.size() > kLogTail) tail_.pop_front();
  }

  int grace_ms_;
  pid_t pid_ = -1;
  std::optional<int> status_;
  pc::Fd stdin_, stdout_, stderr_;
  pc::LineSplitter out_lines_{kMaxLine, pc::LineSplitter::Overflow::truncate};
  pc::LineSplitter err_lines_{kMaxLogLine, pc::LineSplitter::Overflow::truncate};
  std::deque<std::string> tail_;
};

}  // namespace

std::unique_ptr<Connection> open_stdio(const StdioLaunch& launch, const std::string& cwd, int shutdown_grace_ms) {
  return std::make_unique<StdioConnection>(launch, cwd, shutdown_grace_ms);
}

}  // namespace agentry::codex
