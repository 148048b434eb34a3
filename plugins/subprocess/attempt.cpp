// The plugin's one Asio-heavy translation unit: an attempt's child process (Boost.Process
// v2), its output streams, stdin writes, timeouts and the FINISHED event, all on the
// instance's I/O thread.
#include "attempt.hpp"

#include <csignal>
#include <deque>
#include <optional>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/writable_pipe.hpp>
#include <boost/asio/write.hpp>
#include <boost/process/v2.hpp>

#include "agentry/plugin_common/child_process.hpp"
#include "agentry/plugin_common/environment.hpp"
#include "jsonl_protocol.hpp"
#include "output_router.hpp"

namespace agentry::subprocess {

namespace asio = boost::asio;
namespace bp = boost::process::v2;
using namespace std::chrono_literals;
using Executor = asio::io_context::executor_type;
using plugin_common::decode_wait_status;
using plugin_common::kill_group;
using plugin_common::make_pipe;
using plugin_common::open_dev_null;
using plugin_common::Pipe;
using plugin_common::prepare_child;
using plugin_common::WaitStatus;
using plugin_common::check_workspace;
using plugin_common::resolve_program;
using plugin_common::ResolvedProgram;

namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr auto kDrainTimeout = 2s;  // output left open after exit (a child that escaped the group)

// Boost.Process initializer: the child's environment (process_environment's on_setup is
// missing from Boost 1.81's header-only build), and prepare_child() before exec.
struct ChildSetup {
  const char* const* env;
  bp::error_code on_setup(bp::posix::default_launcher& launcher, const bp::filesystem::path&, const char* const*) {
    launcher.env = env;
    return {};
  }
  bp::error_code on_exec_setup(bp::posix::default_launcher&, const bp::filesystem::path&, const char* const*) {
    const int err = prepare_child();
    return err == 0 ? bp::error_code{} : bp::error_code(err, boost::system::system_category());
  }
};

}  // namespace

class Attempt : public std::enable_shared_from_this<Attempt> {
 public:
  Attempt(asio::io_context& ioc, agentry::plugin::Host& host, AttemptSpec spec, std::atomic<bool>& running)
      : ioc_(ioc), host_(host), spec_(std::move(spec)), running_(running), stdout_(ioc), stderr_(ioc), stdin_(ioc),
        timeout_timer_(ioc), grace_timer_(ioc), drain_timer_(ioc), router_(spec_.mode) {
    end_.timeout_sec = spec_.timeout_sec;
  }

  // On the I/O thread, in the same handler that creates the attempt: launches the
  // command and queues its first stdin bytes, so that an interrupt() or input posted
  // after start() always finds the child (or its failure to start).
  void begin() {
    try {
      launch();
    } catch (const std::exception& e) {
      end_.internal_error = std::string("launching the command failed: ") + e.what();
    }
    if (!proc_) return;
    if (spec_.stdin_mode == StdinMode::prompt) {
      close_stdin_when_written_ = true;
      write_stdin(spec_.prompt);
    } else if (spec_.stdin_mode == StdinMode::jsonl) {
      write_stdin(prompt_input_line(spec_.prompt));
    }
  }

  static asio::awaitable<void> run(std::shared_ptr<Attempt> self) {
    try {
      co_await supervise(self);
    } catch (const std::exception& e) {
      self->end_.internal_error = e.what();
      self->kill_now();
    }
    co_await self->finish();
  }

  void stop(StopReason why, std::string reason) {
    if (!proc_ || exited_ || end_.stop != StopReason::none) return;  // no child, or too late
    end_.stop = why;
    end_.interrupt_reason = std::move(reason);
    kill_group(pgid_, SIGINT);
    if (spec_.interrupt_grace.count() == 0) return kill_group(pgid_, SIGKILL);
    grace_timer_.expires_after(spec_.interrupt_grace);
    grace_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec && !self->exited_) kill_group(self->pgid_, SIGKILL);
    });
  }

  void write_stdin(std::string bytes) {
    if (!stdin_.is_open()) return;
    stdin_queue_.push_back(std::move(bytes));
    if (writing_) return;
    writing_ = true;
    asio::co_spawn(ioc_, write_loop(shared_from_this()), asio::detached);
  }

  void kill_now() noexcept {
    if (proc_ && !exited_) kill_group(pgid_, SIGKILL);
    boost::system::error_code ignored;
    stdin_.close(ignored);
    stdout_.close(ignored);
    stderr_.close(ignored);
  }

 private:
  // Looks up the program and spawns it; on failure end_.start_error says why.
  void launch() {
    if (std::string error = check_workspace(spec_.cwd); !error.empty()) {
      end_.start_error = std::move(error);
      return;
    }
    ResolvedProgram program = resolve_program(spec_.argv.front(), spec_.env, spec_.cwd);
    if (!program.error.empty()) {
      end_.start_error = std::move(program.error);
      return;
    }
    Pipe out = make_pipe();
    Pipe err = make_pipe();
    Pipe in;
    if (spec_.stdin_mode == StdinMode::none) in.read = open_dev_null();
    else in = make_pipe();
    const std::vector<std::string> args(spec_.argv.begin() + 1, spec_.argv.end());
    std::vector<const char*> env;
    for (const std::string& entry : spec_.env) env.push_back(entry.c_str());
    env.push_back(nullptr);
    bp::error_code ec;
    bp::posix::default_launcher launcher;
    auto proc = launcher(ioc_.get_executor(), ec, bp::filesystem::path(program.path), args, ChildSetup{env.data()},
                         bp::process_stdio{in.read.get(), out.write.get(), err.write.get()},
                         bp::process_start_dir{spec_.cwd});
    if (ec) {
      end_.start_error = "cannot start command '" + spec_.argv.front() + "': " + ec.message();
      return;
    }
    proc_.emplace(std::move(proc));
    pgid_ = proc_->id();  // ChildSetup made it a group leader before exec
    stdout_.assign(out.read.release());
    stderr_.assign(err.read.release());
    if (in.write.get() >= 0) stdin_.assign(in.write.release());
  }  // the child's ends of the pipes close here

  static asio::awaitable<void> supervise(std::shared_ptr<Attempt> self) {
    if (!self->proc_) co_return;
    self->open_outputs_ = 2;
    asio::co_spawn(self->ioc_, read_output(self, true), asio::detached);
    asio::co_spawn(self->ioc_, read_output(self, false), asio::detached);
    if (self->spec_.timeout_sec > 0) {
      self->timeout_timer_.expires_after(std::chrono::seconds(self->spec_.timeout_sec));
      self->timeout_timer_.async_wait([self](boost::system::error_code ec) {
        if (!ec) self->stop(StopReason::timed_out, {});
      });
    }

    auto [wait_error, ignored_code] = co_await self->proc_->async_wait(kTuple);
    self->exited_ = true;
    self->timeout_timer_.cancel();
    self->grace_timer_.cancel();
    if (wait_error) self->end_.internal_error = "waiting for the command failed: " + wait_error.message();
    const WaitStatus status = decode_wait_status(self->proc_->native_exit_code());
    self->end_.exit_code = status.exit_code;
    self->end_.signal = status.signal;
    if (!wait_error) self->proc_->detach();  // reaped: its destructor must not waitpid()/kill() a reused pid
    kill_group(self->pgid_, SIGKILL);  // whatever it left running in its group
    boost::system::error_code ignored;
    self->stdin_.close(ignored);
    co_await self->drain_outputs();
  }

  // Waits until both output streams reached EOF; after kDrainTimeout closes them.
  asio::awaitable<void> drain_outputs() {
    drain_timer_.expires_after(kDrainTimeout);
    bool forced = false;
    while (open_outputs_ > 0) {
      auto [ec] = co_await drain_timer_.async_wait(kTuple);
      if (open_outputs_ == 0 || ec) continue;  // ec: a reader finished and woke us
      if (forced) break;                         // readers stuck in emit: give up on them
      forced = true;
      host_.log(AGENTRY_LOG_WARNING, "subprocess: output still open after the command exited; closing it");
      boost::system::error_code ignored;
      stdout_.close(ignored);
      stderr_.close(ignored);
      drain_timer_.expires_after(60s);
    }
  }

  static asio::awaitable<void> read_output(std::shared_ptr<Attempt> self, bool is_stdout) {
    try {
      asio::readable_pipe& pipe = is_stdout ? self->stdout_ : self->stderr_;
      LineSplitter splitter = is_stdout ? self->router_.stdout_splitter() : OutputRouter::stderr_splitter();
      std::vector<char> buffer(64 * 1024);
      for (;;) {
        auto [ec, n] = co_await pipe.async_read_some(asio::buffer(buffer), kTuple);
        std::vector<Line> lines = splitter.feed(std::string_view(buffer.data(), n));
        for (Line& line : lines) co_await self->on_line(std::move(line), is_stdout);
        if (ec) break;
      }
      std::optional<Line> rest = splitter.finish();
      if (rest) co_await self->on_line(std::move(*rest), is_stdout);
    } catch (const std::exception& e) {
      self->host_.log(AGENTRY_LOG_WARNING, std::string("subprocess: reading the command's output failed: ") + e.what());
    }
    --self->open_outputs_;
    self->drain_timer_.cancel();
  }

  asio::awaitable<void> on_line(Line line, bool is_stdout) {
    std::optional<Event> event = is_stdout ? router_.on_stdout(std::move(line)) : router_.on_stderr(line);
    if (event) co_await deliver(std::move(*event));
  }

  static asio::awaitable<void> write_loop(std::shared_ptr<Attempt> self) {
    try {
      while (!self->stdin_queue_.empty() && self->stdin_.is_open()) {
        auto [ec, n] = co_await asio::async_write(self->stdin_, asio::buffer(self->stdin_queue_.front()), kTuple);
        if (ec) break;  // EPIPE: the child closed its stdin or exited
        self->stdin_queue_.pop_front();
      }
    } catch (const std::exception&) {
    }
    self->writing_ = false;
    if (self->close_stdin_when_written_ || !self->stdin_queue_.empty()) {
      self->stdin_queue_.clear();
      boost::system::error_code ignored;
      self->stdin_.close(ignored);
    }
  }

  // host.emit(), waiting (without blocking the thread) while the host answers BUSY.
  asio::awaitable<void> deliver(Event event) {
    const bool terminal = (event.flags & AGENTRY_EVENT_FLAG_TERMINAL) != 0;
    const bool ephemeral = (event.flags & AGENTRY_EVENT_FLAG_EPHEMERAL) != 0;
    const auto deadline = std::chrono::steady_clock::now() + (terminal ? 60s : ephemeral ? 2s : 30s);
    auto pause = std::chrono::milliseconds(1);
    asio::steady_timer timer(ioc_);
    for (;;) {
      if (closing_ && !terminal) co_return;  // nothing may follow FINISHED
      const agentry_status_t status = host_.emit(event.type, event.flags, event.payload);
      if (status == AGENTRY_OK) co_return;
      if (status != AGENTRY_ERR_BUSY || std::chrono::steady_clock::now() >= deadline) {
        host_.log(terminal ? AGENTRY_LOG_ERROR : AGENTRY_LOG_WARNING,
                  "subprocess: event of type " + std::to_string(event.type) + " dropped: emit returned " +
                      std::to_string(status));
        co_return;
      }
      timer.expires_after(pause);
      co_await timer.async_wait(kTuple);
      pause = std::min(pause * 2, std::chrono::milliseconds(20));
    }
  }

  asio::awaitable<void> finish() {
    std::vector<Event> closing = router_.closing_events();
    for (Event& event : closing) co_await deliver(std::move(event));
    end_.declared = router_.declared();
    Event finished = finished_event(end_);
    closing_ = true;
    running_.store(false);  // the host may start() again as soon as it has FINISHED
    co_await deliver(std::move(finished));
  }

  asio::io_context& ioc_;
  agentry::plugin::Host& host_;
  const AttemptSpec spec_;
  std::atomic<bool>& running_;
  std::optional<bp::basic_process<Executor>> proc_;
  int pgid_ = -1;
  asio::readable_pipe stdout_, stderr_;
  asio::writable_pipe stdin_;
  std::deque<std::string> stdin_queue_;
  bool writing_ = false;
  bool close_stdin_when_written_ = false;
  asio::steady_timer timeout_timer_, grace_timer_, drain_timer_;
  int open_outputs_ = 0;
  bool exited_ = false;
  bool closing_ = false;
  OutputRouter router_;
  AttemptEnd end_;
};

std::shared_ptr<Attempt> begin_attempt(asio::io_context& ioc, agentry::plugin::Host& host, AttemptSpec spec,
                                       std::atomic<bool>& running) {
  std::shared_ptr<Attempt> attempt;
  try {
    attempt = std::make_shared<Attempt>(ioc, host, std::move(spec), running);
    attempt->begin();
    asio::co_spawn(ioc, Attempt::run(attempt), [&host](std::exception_ptr e) {
      if (e) host.log(AGENTRY_LOG_ERROR, "subprocess: attempt ended with an exception");
    });
    return attempt;
  } catch (...) {  // out of memory before the attempt could run: still end it (obligation 5)
    if (attempt) attempt->kill_now();
    running.store(false);
    host.emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL,
                         R"({"outcome":"error","message":"subprocess backend: out of memory"})");
    return nullptr;
  }
}

void stop_attempt(Attempt& attempt, StopReason why, std::string reason) { attempt.stop(why, std::move(reason)); }

void write_attempt_stdin(Attempt& attempt, std::string bytes) { attempt.write_stdin(std::move(bytes)); }

void kill_attempt(Attempt& attempt) noexcept { attempt.kill_now(); }

}  // namespace agentry::subprocess
