#include "attempt.hpp"

#include <csignal>
#include <system_error>

#include "agentry/plugin_common/environment.hpp"
#include "jsonl_protocol.hpp"

namespace agentry::subprocess {

namespace common = agentry::plugin_common;

Attempt::Attempt(agentry::plugin::Host& host, common::runtime::Executor& executor, AttemptSpec spec)
    : executor_(executor),
      spec_(std::move(spec)),
      events_(host, "subprocess"),
      timeout_timer_(executor.get_executor()),
      grace_timer_(executor.get_executor()),
      router_(spec_.mode) {
  end_.timeout_sec = spec_.timeout_sec;
}

std::shared_ptr<Attempt> Attempt::start(agentry::plugin::Host& host, common::runtime::Executor& executor,
                                        AttemptSpec spec) {
  std::shared_ptr<Attempt> attempt(new Attempt(host, executor, std::move(spec)));
  // One handler launches the child and queues its first stdin bytes, so an interrupt()
  // or input posted after start() always finds the child (or its failure to start).
  executor.post([attempt] { attempt->begin(); });
  return attempt;
}

void Attempt::begin() {
  try {
    launch();
  } catch (const std::exception& e) {
    end_.internal_error = std::string("launching the command failed: ") + e.what();
  }
  if (!child_) {
    emit(finished_event(end_));
    return;
  }
  if (spec_.stdin_mode == StdinMode::prompt) {
    child_->write(spec_.prompt);
    child_->close_stdin();
  } else if (spec_.stdin_mode == StdinMode::jsonl) {
    child_->write(prompt_input_line(spec_.prompt));
  } else {
    child_->close_stdin();  // EOF at once: the command reads nothing
  }
  if (spec_.timeout_sec > 0) {
    timeout_timer_.expires_after(std::chrono::seconds(spec_.timeout_sec));
    timeout_timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
      if (auto self = weak.lock(); self && !ec) self->stop(StopReason::timed_out, {});
    });
  }
}

void Attempt::launch() {
  if (std::string error = common::check_workspace(spec_.cwd); !error.empty()) {
    end_.start_error = std::move(error);
    return;
  }
  common::ResolvedProgram program = common::resolve_program(spec_.argv.front(), spec_.env, spec_.cwd);
  if (!program.error.empty()) {
    end_.start_error = std::move(program.error);
    return;
  }
  common::runtime::ChildSpec child{program.path, spec_.argv, spec_.env, spec_.cwd};
  const LineSplitter out = router_.stdout_splitter();
  child.max_stdout_line = out.max_line();
  child.stdout_overflow = out.overflow();
  child.max_stderr_line = OutputRouter::stderr_splitter().max_line();
  std::weak_ptr<Attempt> weak = weak_from_this();
  common::runtime::ChildHandlers handlers;
  handlers.stdout_line = [weak](common::Line line) {
    if (auto self = weak.lock())
      if (std::optional<Event> event = self->router_.on_stdout(std::move(line))) self->emit(*event);
  };
  handlers.stderr_line = [weak](const common::Line& line) {
    if (auto self = weak.lock())
      if (std::optional<Event> event = self->router_.on_stderr(line)) self->emit(*event);
  };
  handlers.exited = [weak](common::WaitStatus status) {
    if (auto self = weak.lock()) self->on_exit(status);
  };
  try {
    child_ = common::runtime::Child::spawn(executor_.get_executor(), std::move(child), std::move(handlers));
  } catch (const std::system_error& e) {
    end_.start_error = "cannot start command '" + spec_.argv.front() + "': " + e.code().message();
  }
}

void Attempt::stop(StopReason why, std::string reason) {
  if (!child_ || !child_->running() || end_.stop != StopReason::none) return;  // no child, or too late
  end_.stop = why;
  end_.interrupt_reason = std::move(reason);
  child_->signal_group(SIGINT);
  if (spec_.interrupt_grace.count() == 0) return child_->kill();
  grace_timer_.expires_after(spec_.interrupt_grace);
  grace_timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (auto self = weak.lock(); self && !ec) self->child_->kill();
  });
}

void Attempt::on_exit(common::WaitStatus status) {
  timeout_timer_.cancel();
  grace_timer_.cancel();
  end_.exit_code = status.exit_code;
  end_.signal = status.signal;
  for (const Event& event : router_.closing_events()) emit(event);
  end_.declared = router_.declared();
  emit(finished_event(end_));
}

void Attempt::emit(const Event& event) noexcept {
  // The host may start() again as soon as it has FINISHED.
  if ((event.flags & AGENTRY_EVENT_FLAG_TERMINAL) != 0) running_.store(false);
  events_.emit_serialized(event.type, event.flags, event.payload);
}

void Attempt::interrupt(std::string reason) {
  executor_.post([self = shared_from_this(), reason = std::move(reason)]() mutable {
    self->stop(StopReason::interrupted, std::move(reason));
  });
}

void Attempt::write_stdin(std::string bytes) {
  executor_.post([self = shared_from_this(), bytes = std::move(bytes)]() mutable {
    if (self->child_) self->child_->write(std::move(bytes));
  });
}

void Attempt::abandon() noexcept {
  running_.store(false);
  timeout_timer_.cancel();
  grace_timer_.cancel();
  if (child_) {
    child_->forget_handlers();
    child_->kill();
  }
}

}  // namespace agentry::subprocess
