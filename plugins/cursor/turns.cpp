#include "turns.hpp"

#include <system_error>

#include "agentry/plugin_common/environment.hpp"

namespace agentry::cursor {

namespace common = agentry::plugin_common;
using namespace std::chrono_literals;

namespace {

// cursor-agent sometimes stays after printing its result (and its workers with it):
// once the result is in, it gets this long to exit before its group is stopped.
constexpr auto kAfterResult = 3s;
constexpr auto kKillGrace = 2s;

}  // namespace

Turns::Turns(agentry::plugin::Host& host, common::runtime::Executor& executor, Launch launch)
    : host_(host),
      executor_(executor),
      launch_(std::move(launch)),
      events_(host, "cursor"),
      chat_(launch_.resume_chat),
      after_result_(executor.get_executor()),
      ending_(executor, events_, follow_ups_, child_,
              {.child = "cursor-agent", .work = "its result", .stderr_name = "stderr"}) {}

std::shared_ptr<Turns> Turns::start(agentry::plugin::Host& host, common::runtime::Executor& executor, Launch launch) {
  std::shared_ptr<Turns> turns(new Turns(host, executor, std::move(launch)));
  executor.post([turns] { turns->run_turn(turns->launch_.prompt); });
  return turns;
}

void Turns::run_turn(std::string prompt) {
  if (interrupted_) return ending_.finish("interrupted", "interrupted", std::nullopt);
  const common::ResolvedProgram program = common::resolve_program(launch_.argv.front(), launch_.env, launch_.cwd);
  if (program.path.empty())
    return ending_.finish("error",
                          "cannot start cursor-agent: " + program.error +
                              " (install it with the Cursor CLI installer, then set backendConfig.cursor.binary or "
                              "AGENTRY_CURSOR_BIN if it is not on PATH; see docs/backends/cursor.md)",
                          std::nullopt);
  if (std::string bad = common::check_workspace(launch_.cwd); !bad.empty())
    return ending_.finish("error", "cannot start cursor-agent: " + bad, std::nullopt);
  stream_ = TurnStream{};
  std::weak_ptr<Turns> weak = weak_from_this();
  common::runtime::ChildHandlers handlers;
  handlers.stdout_line = [weak](common::Line line) {
    if (auto self = weak.lock()) self->on_line(line.text);
  };
  handlers.stderr_line = [weak](const common::Line& line) {
    if (auto self = weak.lock(); self && !line.text.empty()) self->host_.log(AGENTRY_LOG_INFO, "cursor stderr: " + line.text);
  };
  handlers.exited = [weak](common::WaitStatus status) {
    if (auto self = weak.lock()) self->on_exit(status);
  };
  try {
    child_ = common::runtime::Child::spawn(
        executor_.get_executor(),
        common::runtime::ChildSpec{program.path, turn_argv(launch_, chat_, prompt), launch_.env, launch_.cwd},
        std::move(handlers));
  } catch (const std::system_error& e) {
    return ending_.finish("error", "cannot start '" + program.path + "': " + e.code().message(), std::nullopt);
  }
  child_->close_stdin();  // the prompt is on the command line; nothing is read
  host_.log(AGENTRY_LOG_INFO, "cursor: started pid " + std::to_string(child_->pid()) +
                                  (chat_.empty() ? std::string(", a new chat") : ", chat " + chat_));
}

void Turns::on_line(const std::string& line) {
  for (const Event& event : stream_.line(line)) events_.emit(event);
  if (stream_.has_result() && !interrupted_) {
    after_result_.expires_after(kAfterResult);
    after_result_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
      if (auto self = weak.lock(); self && !ec && self->child_) self->child_->terminate(kKillGrace);
    });
  }
}

void Turns::on_exit(common::WaitStatus status) {
  after_result_.cancel();
  for (const Event& event : stream_.end()) events_.emit(event);
  if (!stream_.chat_id().empty()) chat_ = stream_.chat_id();
  if (interrupted_) return ending_.finish("interrupted", "interrupted", status.exit_code);
  if (!stream_.has_result()) return ending_.finish("error", ending_.early_exit(status), status.exit_code);
  if (stream_.result_is_error())
    return ending_.finish("error", "cursor-agent reported an error: " + stream_.result_text(), status.exit_code);
  if (std::optional<std::string> next = follow_ups_.next_or_close()) return run_turn(std::move(*next));
  // A process stopped after its result (it lingered) still did its work.
  ending_.finish("success", {}, status.exit_code);
}

agentry_status_t Turns::send_message(std::string text) {
  return follow_ups_.add(std::move(text)) ? AGENTRY_OK : AGENTRY_ERR_INVALID_STATE;
}

void Turns::interrupt(std::string reason) {
  follow_ups_.close();
  executor_.post([self = shared_from_this(), reason = std::move(reason)] {
    if (self->interrupted_ || self->ending_.finished()) return;
    self->interrupted_ = true;
    self->host_.log(AGENTRY_LOG_INFO, "cursor: interrupt: " + reason);
    // Print mode has no cancel request: the group is asked to stop, then made to.
    if (self->child_ && self->child_->running()) self->child_->terminate(self->launch_.interrupt_grace);
  });
}

void Turns::abandon() noexcept {
  ending_.abandon();
  after_result_.cancel();
}

}  // namespace agentry::cursor
