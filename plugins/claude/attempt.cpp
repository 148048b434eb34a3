#include "attempt.hpp"

#include <cerrno>
#include <csignal>
#include <memory>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "agentry/plugin_common/line_splitter.hpp"
#include "process.hpp"

namespace agentry::claude {

namespace common = agentry::plugin_common;
using namespace std::chrono_literals;

namespace {

constexpr auto kExitGrace = 10s;  // stdin closed after the last result -> Claude should be gone by then
constexpr auto kKillGrace = 2s;   // SIGTERM -> SIGKILL
constexpr auto kDrainGrace = 2s;  // Claude exited but a command it started still holds its stdout
constexpr std::size_t kStderrTailBytes = 2 * 1024;  // quoted when Claude dies early

void set_nonblocking(int fd) noexcept { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// "claude exited with code 1", "claude was killed by signal 9".
std::string describe_exit(const std::optional<common::WaitStatus>& status) {
  if (!status) return "claude's exit status is unknown";
  if (status->exit_code) return "claude exited with code " + std::to_string(*status->exit_code);
  if (status->signal) return "claude was killed by signal " + std::to_string(*status->signal);
  return "claude ended";
}

// One read() from a readable stream, its complete lines handed to `on_line`. False at
// end of stream (the unterminated rest handed over too) or on a read error.
template <class OnLine>
bool read_stream(int fd, common::LineSplitter& splitter, const OnLine& on_line) {
  char buffer[64 * 1024];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n > 0) {
    for (const common::Line& line : splitter.feed(std::string_view(buffer, static_cast<std::size_t>(n)))) on_line(line);
    return true;
  }
  if (std::optional<common::Line> rest = splitter.finish()) on_line(*rest);
  return false;
}

}  // namespace

Attempt::Attempt(agentry::plugin::Host& host, LaunchSpec spec)
    : host_(host), spec_(std::move(spec)), wake_(common::make_pipe()), conversation_(spec_.unrestricted) {
  set_nonblocking(wake_.read.get());
  set_nonblocking(wake_.write.get());
  // Queued before the worker exists, so an interrupt() right after start() finds a turn.
  apply(conversation_.open(spec_.prompt));
  worker_ = std::thread([this] { work(); });
}

Attempt::~Attempt() { stop(); }

void Attempt::apply(Step step) {
  for (Event& e : step.events) outbox_.push_back(std::move(e));
  for (const std::string& w : step.writes) stdin_buffer_ += w;
  close_stdin_ = close_stdin_ || step.close_stdin;
}

void Attempt::wake() noexcept {
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_.write.get(), &byte, 1);  // full pipe: already awake
}

agentry_status_t Attempt::send_message(std::string_view text) {
  {
    std::lock_guard lock(mutex_);
    std::optional<Step> step = conversation_.on_message(text);
    if (!step) return AGENTRY_ERR_INVALID_STATE;
    apply(std::move(*step));
  }
  wake();
  return AGENTRY_OK;
}

agentry_status_t Attempt::answer_approval(std::string_view approval_id, bool approve) {
  {
    std::lock_guard lock(mutex_);
    std::optional<Step> step = conversation_.on_approval(approval_id, approve);
    if (!step) return AGENTRY_ERR_NOT_FOUND;
    apply(std::move(*step));
  }
  wake();
  return AGENTRY_OK;
}

void Attempt::interrupt(std::string_view reason) {
  {
    std::lock_guard lock(mutex_);
    apply(conversation_.on_interrupt(reason));
    if (conversation_.interrupting() && !interrupted_at_) interrupted_at_ = Clock::now();
  }
  wake();
}

void Attempt::stop() noexcept {
  if (!worker_.joinable()) return;
  try {
    std::lock_guard lock(mutex_);
    apply(conversation_.on_interrupt("the backend instance was destroyed"));
    stop_requested_ = true;
  } catch (...) {
    std::lock_guard lock(mutex_);
    stop_requested_ = true;
  }
  wake();
  worker_.join();
}

void Attempt::emit(const Event& event) noexcept {
  const bool ephemeral = (event.flags & AGENTRY_EVENT_FLAG_EPHEMERAL) != 0;
  const agentry_status_t status = host_.emit_with_retry(event.type, event.flags, event.payload, ephemeral ? 2s : 30s);
  if (status != AGENTRY_OK)
    host_.log(AGENTRY_LOG_WARNING, "claude: event of type " + std::to_string(event.type) +
                                       " dropped: emit returned " + std::to_string(status));
}

void Attempt::finish(const Outcome& outcome, const std::optional<common::WaitStatus>& status) noexcept {
  try {
    boost::json::object payload{{"outcome", outcome.outcome}};
    if (!outcome.message.empty()) payload["message"] = outcome.message;
    if (status && status->exit_code) payload["exitCode"] = *status->exit_code;
    if (status && status->signal) payload["signal"] = *status->signal;
    running_.store(false);  // the host may start() again as soon as it has FINISHED
    host_.emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, boost::json::serialize(payload), 60s);
  } catch (...) {
    running_.store(false);
    host_.emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL,
                          R"({"outcome":"error","message":"claude backend: out of memory"})", 60s);
  }
}

void Attempt::work() noexcept {
  common::block_sigpipe_on_this_thread();
  try {
    run_process();
  } catch (const std::exception& e) {
    finish({"error", std::string("claude backend: ") + e.what()}, std::nullopt);
  } catch (...) {
    finish({"error", "claude backend: unknown failure"}, std::nullopt);
  }
}

void Attempt::run_process() {
  std::unique_ptr<ClaudeProcess> process;
  try {
    process = std::make_unique<ClaudeProcess>(spec_);
  } catch (const std::runtime_error& e) {
    finish({"error", e.what()}, std::nullopt);
    return;
  }
  host_.log(AGENTRY_LOG_INFO, "claude: started pid " + std::to_string(process->pid()) +
                                  (spec_.resuming ? ", resuming session " : ", session ") + spec_.session_id);
  Supervision s;
  for (;;) {
    std::deque<Event> events;
    bool stop = false;
    {
      std::lock_guard lock(mutex_);
      events.swap(outbox_);
      stop = stop_requested_;
    }
    for (const Event& event : events) emit(event);
    const Clock::time_point now = Clock::now();
    if (enforce_deadlines(*process, s, stop, now)) continue;
    const bool want_write = flush_stdin(*process, s, stop, now);
    if (process->poll_exit() && !s.exited_at) s.exited_at = now;
    const bool outputs_open = process->stdout_fd() >= 0 || process->stderr_fd() >= 0;
    if (s.exited_at && (!outputs_open || now >= *s.exited_at + kDrainGrace)) break;
    wait_and_read(*process, s, want_write);
  }
  process->close_stdout();
  process->close_stderr();

  Outcome outcome;
  std::deque<Event> events;
  {
    std::lock_guard lock(mutex_);
    std::string note;
    if (!conversation_.turns_done()) {
      note = describe_exit(process->status()) + " before its turn ended";
      if (!s.stderr_tail.empty()) {
        const std::size_t from = s.stderr_tail.size() > kStderrTailBytes ? s.stderr_tail.size() - kStderrTailBytes : 0;
        note += "; stderr: " + bounded_text(std::string_view(s.stderr_tail).substr(from), kStderrTailBytes);
      }
    }
    outcome = conversation_.outcome(note);
    if (s.forced_after_interrupt && outcome.outcome == "interrupted")
      outcome.message += " (claude did not stop within " + std::to_string(spec_.interrupt_grace.count()) +
                         " ms; its process group was terminated)";
    events.swap(outbox_);
  }
  for (const Event& event : events) emit(event);
  finish(outcome, process->status());
}

bool Attempt::enforce_deadlines(ClaudeProcess& process, Supervision& s, bool stop, Clock::time_point now) {
  if (stop && !s.killed) {
    process.signal_group(SIGKILL);
    s.killed = true;
  }
  if (spec_.timeout_sec > 0 && !s.timeout_fired && now >= s.started + std::chrono::seconds(spec_.timeout_sec)) {
    s.timeout_fired = true;
    std::lock_guard lock(mutex_);
    apply(conversation_.on_timeout(spec_.timeout_sec));
    if (conversation_.interrupting() && !interrupted_at_) interrupted_at_ = now;
    return true;  // the interrupt it queued goes out on the next pass
  }
  std::optional<Clock::time_point> interrupted_at;
  {
    std::lock_guard lock(mutex_);
    interrupted_at = interrupted_at_;
  }
  if (!s.term_sent_at && !process.status()) {
    if (interrupted_at && now >= *interrupted_at + spec_.interrupt_grace) s.forced_after_interrupt = true;
    if (s.forced_after_interrupt || (s.stdin_closed_at && now >= *s.stdin_closed_at + kExitGrace)) {
      process.signal_group(SIGTERM);
      s.term_sent_at = now;
    }
  }
  if (s.term_sent_at && !s.killed && now >= *s.term_sent_at + kKillGrace) {
    process.signal_group(SIGKILL);
    s.killed = true;
  }
  return false;
}

bool Attempt::flush_stdin(ClaudeProcess& process, Supervision& s, bool stop, Clock::time_point now) {
  if (process.stdin_fd() < 0) return false;
  std::lock_guard lock(mutex_);
  while (!stdin_buffer_.empty()) {
    const ssize_t n = ::write(process.stdin_fd(), stdin_buffer_.data(), stdin_buffer_.size());
    if (n > 0) {
      stdin_buffer_.erase(0, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n < 0 && errno != EAGAIN) stdin_buffer_.clear();  // EPIPE: Claude is gone
      break;
    }
  }
  if (!stdin_buffer_.empty()) return true;
  if (close_stdin_ || stop) {  // every turn has its result: EOF lets Claude exit
    process.close_stdin();
    s.stdin_closed_at = now;
  }
  return false;
}

void Attempt::wait_and_read(ClaudeProcess& process, Supervision& s, bool want_write) {
  pollfd fds[4];
  nfds_t count = 0;
  fds[count++] = pollfd{wake_.read.get(), POLLIN, 0};
  int out_index = -1, err_index = -1;
  if (process.stdout_fd() >= 0) {
    out_index = static_cast<int>(count);
    fds[count++] = pollfd{process.stdout_fd(), POLLIN, 0};
  }
  if (process.stderr_fd() >= 0) {
    err_index = static_cast<int>(count);
    fds[count++] = pollfd{process.stderr_fd(), POLLIN, 0};
  }
  if (want_write) fds[count++] = pollfd{process.stdin_fd(), POLLOUT, 0};
  // Output arrives by readiness; the tick only bounds how late a deadline, or the
  // leader's exit once its outputs are closed, is noticed.
  const int tick_ms = out_index >= 0 || err_index >= 0 ? 100 : 10;
  if (::poll(fds, count, tick_ms) < 0 && errno != EINTR) throw std::runtime_error("poll failed");

  if (fds[0].revents != 0) {
    char drain[256];
    while (::read(wake_.read.get(), drain, sizeof drain) > 0) {
    }
  }
  const auto on_stdout_line = [&](const common::Line& line) {
    std::lock_guard lock(mutex_);
    if (line.dropped > 0)
      outbox_.push_back(notice("warning", "claude printed a line over " + std::to_string(kMaxLineBytes) +
                                              " bytes; it was cut and could not be read"));
    apply(conversation_.on_line(line.text));
  };
  const auto on_stderr_line = [&](const common::Line& line) {
    if (line.text.empty()) return;
    host_.log(AGENTRY_LOG_INFO, "claude stderr: " + line.text);
    s.stderr_tail += line.text + "\n";
    if (s.stderr_tail.size() > 2 * kStderrTailBytes) s.stderr_tail.erase(0, s.stderr_tail.size() - kStderrTailBytes);
  };
  if (out_index >= 0 && fds[out_index].revents != 0 && !read_stream(fds[out_index].fd, s.out_lines, on_stdout_line))
    process.close_stdout();
  if (err_index >= 0 && fds[err_index].revents != 0 && !read_stream(fds[err_index].fd, s.err_lines, on_stderr_line))
    process.close_stderr();
}

}  // namespace agentry::claude
