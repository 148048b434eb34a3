#include "agentry/plugin_common/runtime/child.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <system_error>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/write.hpp>

#include "agentry/plugin_common/spawn.hpp"

namespace agentry::plugin_common::runtime {

namespace asio = boost::asio;

namespace {

// How long stdout and stderr may stay open after the child exited (a grandchild holding a pipe).
constexpr std::chrono::milliseconds kDrainAfterExit{1000};
constexpr std::chrono::milliseconds kExitPollInterval{20};
constexpr std::size_t kReadChunk = 64 * 1024;

int open_pidfd(pid_t pid) noexcept {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

}  // namespace

Child::Child(const asio::any_io_executor& io, ChildSpec spec, ChildHandlers handlers)
    : io_(io),
      spec_(std::move(spec)),
      handlers_(std::move(handlers)),
      stdin_(io),
      stdout_(io),
      stderr_(io),
      pidfd_(io),
      kill_timer_(io),
      drain_timer_(io),
      poll_timer_(io),
      out_lines_(spec_.max_stdout_line, spec_.stdout_overflow),
      err_lines_(spec_.max_stderr_line, LineSplitter::Overflow::truncate) {}

std::shared_ptr<Child> Child::spawn(const asio::any_io_executor& io, ChildSpec spec, ChildHandlers handlers) {
  if (!spec.output_file.empty()) {
    SpawnRequest request{spec.program, spec.argv, spec.env, spec.cwd, -1, -1, -1, spec.output_file, spec.more_fds};
    std::shared_ptr<Child> child(new Child(io, std::move(spec), std::move(handlers)));
    child->pid_ = spawn_in_new_group(request);
    child->stdout_done_ = child->stderr_done_ = true;  // nothing to read: the exit alone ends it
    child->watch_exit();
    return child;
  }
  Pipe in = make_pipe(), out = make_pipe(), err = make_pipe();
  SpawnRequest request{spec.program, spec.argv,     spec.env,
                       spec.cwd,     in.read.get(), out.write.get(),
                       spec.stderr_to_stdout ? out.write.get() : err.write.get(),
                       {},
                       spec.more_fds};
  std::shared_ptr<Child> child(new Child(io, std::move(spec), std::move(handlers)));
  child->pid_ = spawn_in_new_group(request);
  // The child's ends close here, so EOF on stdout means every writer is gone.
  in.read = Fd();
  out.write = Fd();
  err.write = Fd();
  child->start(std::move(in.write), std::move(out.read), std::move(err.read));
  return child;
}

Child::~Child() {
  if (pid_ > 0 && !status_) {
    kill_group(pid_, SIGKILL);
    int raw = 0;
    while (::waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
    }
  }
}

void Child::start(Fd stdin_fd, Fd stdout_fd, Fd stderr_fd) {
  stdin_.assign(stdin_fd.release());
  stdout_.assign(stdout_fd.release());
  stderr_.assign(stderr_fd.release());
  stdin_.non_blocking(true);
  read_stdout();
  read_stderr();
  watch_exit();
}

void Child::read_stdout() {
  out_buffer_.resize(kReadChunk);
  stdout_.async_read_some(asio::buffer(out_buffer_), [self = shared_from_this()](boost::system::error_code ec,
                                                                                 std::size_t n) {
    if (!ec) {
      for (Line& line : self->out_lines_.feed(std::string_view(self->out_buffer_.data(), n)))
        if (self->handlers_.stdout_line) self->handlers_.stdout_line(std::move(line));
      self->read_stdout();
      return;
    }
    if (std::optional<Line> tail = self->out_lines_.finish(); tail && self->handlers_.stdout_line)
      self->handlers_.stdout_line(std::move(*tail));
    self->stdout_done_ = true;
    boost::system::error_code ignored;
    self->stdout_.close(ignored);
    self->maybe_report();
  });
}

void Child::read_stderr() {
  err_buffer_.resize(8 * 1024);
  stderr_.async_read_some(asio::buffer(err_buffer_), [self = shared_from_this()](boost::system::error_code ec,
                                                                                 std::size_t n) {
    auto keep = [&](const Line& line) {
      self->stderr_tail_.append(line.text).push_back('\n');
      if (self->stderr_tail_.size() > self->spec_.stderr_tail_bytes) {
        std::size_t cut = self->stderr_tail_.size() - self->spec_.stderr_tail_bytes;
        if (std::size_t nl = self->stderr_tail_.find('\n', cut); nl != std::string::npos) cut = nl + 1;
        self->stderr_tail_.erase(0, cut);
      }
      if (self->handlers_.stderr_line) self->handlers_.stderr_line(line);
    };
    if (!ec) {
      for (const Line& line : self->err_lines_.feed(std::string_view(self->err_buffer_.data(), n))) keep(line);
      self->read_stderr();
      return;
    }
    if (std::optional<Line> tail = self->err_lines_.finish()) keep(*tail);
    self->stderr_done_ = true;
    boost::system::error_code ignored;
    self->stderr_.close(ignored);
    self->maybe_report();
  });
}

bool Child::write(std::string bytes) {
  if (stdin_closing_ || !stdin_.is_open() || pending_bytes_ + bytes.size() > spec_.max_pending_stdin) return false;
  pending_bytes_ += bytes.size();
  pending_.push_back(std::move(bytes));
  if (!writing_) write_next();
  return true;
}

void Child::close_stdin() {
  stdin_closing_ = true;
  if (!writing_) write_next();
}

void Child::write_next() {
  if (pending_.empty()) {
    if (stdin_closing_) {
      boost::system::error_code ignored;
      stdin_.close(ignored);
    }
    return;
  }
  writing_ = true;
  asio::async_write(stdin_, asio::buffer(pending_.front()),
                    [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                      self->writing_ = false;
                      if (ec) {
                        // The child stopped reading (EPIPE), or its exit was reported and
                        // stdin closed under this write: nothing more can reach it.
                        self->pending_.clear();
                        self->pending_bytes_ = 0;
                        self->stdin_closing_ = true;
                      } else {
                        self->pending_bytes_ -= self->pending_.front().size();
                        self->pending_.pop_front();
                      }
                      self->write_next();
                    });
}

void Child::terminate(std::chrono::milliseconds grace) {
  if (status_ || terminating_) return;
  terminating_ = true;
  kill_group(pid_, SIGTERM);
  kill_timer_.expires_after(grace);
  kill_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec && !self->status_) self->kill();
  });
}

void Child::kill() noexcept { signal_group(SIGKILL); }

void Child::signal_group(int sig) noexcept {
  if (pid_ > 0 && !status_) kill_group(pid_, sig);
}

void Child::watch_exit() {
  const int fd = open_pidfd(pid_);
  if (fd < 0) {
    poll_exit();
    return;
  }
  pidfd_.assign(fd);
  pidfd_.async_wait(asio::posix::stream_descriptor::wait_read, [self = shared_from_this()](boost::system::error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    int raw = 0;
    if (try_reap(self->pid_, raw)) self->reaped(raw);
    else self->poll_exit();  // readable but not reapable: should not happen; fall back
  });
}

void Child::poll_exit() {
  int raw = 0;
  if (try_reap(pid_, raw)) {
    reaped(raw);
    return;
  }
  poll_timer_.expires_after(kExitPollInterval);
  poll_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) self->poll_exit();
  });
}

void Child::reaped(int raw_status) {
  status_ = decode_wait_status(raw_status);
  // What the leader left in its group goes with it: an agent's tool processes included.
  kill_group(pid_, SIGKILL);
  kill_timer_.cancel();
  boost::system::error_code ignored;
  pidfd_.close(ignored);
  if (!stdout_done_ || !stderr_done_) {
    drain_timer_.expires_after(kDrainAfterExit);
    drain_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec) return;
      self->stdout_done_ = self->stderr_done_ = true;
      boost::system::error_code ignored_close;
      self->stdout_.close(ignored_close);
      self->stderr_.close(ignored_close);
      self->maybe_report();
    });
  }
  maybe_report();
}

void Child::maybe_report() {
  // Both pipes read to their end first: the last stderr lines belong before the exit.
  if (reported_ || !status_ || !stdout_done_ || !stderr_done_) return;
  reported_ = true;
  drain_timer_.cancel();
  boost::system::error_code ignored;
  stdin_.close(ignored);
  stdin_closing_ = true;
  // A write still in flight holds the front string until its handler runs (aborted by the
  // close above); that handler drops what is left.
  if (!writing_) {
    pending_.clear();
    pending_bytes_ = 0;
  }
  if (handlers_.exited) handlers_.exited(*status_);
}

void wind_down(const std::shared_ptr<Child>& child, asio::steady_timer& timer, std::chrono::milliseconds grace) {
  child->close_stdin();
  timer.expires_after(grace);
  timer.async_wait([weak = std::weak_ptr<Child>(child), grace](boost::system::error_code ec) {
    if (auto c = weak.lock(); c && !ec) c->terminate(grace);
  });
}

}  // namespace agentry::plugin_common::runtime
