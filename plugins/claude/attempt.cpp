#include "attempt.hpp"

#include <stdexcept>
#include <system_error>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "child_spec.hpp"

namespace agentry::claude {

namespace common = agentry::plugin_common;
using namespace std::chrono_literals;

namespace {

constexpr auto kExitGrace = 10s;  // stdin closed after the last result -> Claude should be gone by then
constexpr auto kKillGrace = 2s;   // SIGTERM -> SIGKILL

// "claude exited with code 1", "claude was killed by signal 9".
std::string describe_exit(const common::WaitStatus& status) {
  if (status.exit_code) return "claude exited with code " + std::to_string(*status.exit_code);
  if (status.signal) return "claude was killed by signal " + std::to_string(*status.signal);
  return "claude ended";
}

}  // namespace

Attempt::Attempt(agentry::plugin::Host& host, common::runtime::Executor& executor, LaunchSpec spec)
    : host_(host),
      executor_(executor),
      spec_(std::move(spec)),
      timeout_timer_(executor.get_executor()),
      interrupt_timer_(executor.get_executor()),
      exit_timer_(executor.get_executor()),
      conversation_(spec_.unrestricted) {}

std::shared_ptr<Attempt> Attempt::start(agentry::plugin::Host& host, common::runtime::Executor& executor,
                                        LaunchSpec spec) {
  std::shared_ptr<Attempt> attempt(new Attempt(host, executor, std::move(spec)));
  {
    // Queued before anything runs, so an interrupt() right after start() finds a turn.
    std::lock_guard lock(attempt->mutex_);
    attempt->queue(attempt->conversation_.open(attempt->spec_.prompt));
  }
  executor.post([attempt] { attempt->begin(); });
  return attempt;
}

void Attempt::queue(Step step) { steps_.push_back(std::move(step)); }

void Attempt::begin() {
  std::weak_ptr<Attempt> weak = weak_from_this();
  common::runtime::ChildHandlers handlers;
  handlers.stdout_line = [weak](common::Line line) {
    auto self = weak.lock();
    if (!self) return;
    {
      std::lock_guard lock(self->mutex_);
      if (line.dropped > 0)
        self->queue(Step{{notice("warning", "claude printed a line over " + std::to_string(kMaxLineBytes) +
                                                 " bytes; it was cut and could not be read")},
                         {},
                         false});
      self->queue(self->conversation_.on_line(line.text));
    }
    self->drain();
  };
  handlers.stderr_line = [weak](const common::Line& line) {
    if (auto self = weak.lock(); self && !line.text.empty()) self->host_.log(AGENTRY_LOG_INFO, "claude stderr: " + line.text);
  };
  handlers.exited = [weak](common::WaitStatus status) {
    if (auto self = weak.lock()) self->on_exit(status);
  };
  try {
    child_ = common::runtime::Child::spawn(executor_.get_executor(), claude_child(spec_, kMaxLineBytes), std::move(handlers));
  } catch (const std::system_error& e) {
    return finish({"error", "cannot start '" + spec_.argv.front() + "': " + e.code().message()}, std::nullopt);
  } catch (const std::runtime_error& e) {
    return finish({"error", e.what()}, std::nullopt);
  }
  host_.log(AGENTRY_LOG_INFO, "claude: started pid " + std::to_string(child_->pid()) +
                                  (spec_.resuming ? ", resuming session " : ", session ") + spec_.session_id);
  if (spec_.timeout_sec > 0) {
    timeout_timer_.expires_after(std::chrono::seconds(spec_.timeout_sec));
    timeout_timer_.async_wait([weak](boost::system::error_code ec) {
      auto self = weak.lock();
      if (ec || !self) return;
      {
        std::lock_guard lock(self->mutex_);
        self->queue(self->conversation_.on_timeout(self->spec_.timeout_sec));
      }
      self->drain();
    });
  }
  drain();
}

void Attempt::drain() {
  std::deque<Step> steps;
  bool interrupting = false;
  {
    std::lock_guard lock(mutex_);
    steps.swap(steps_);
    interrupting = conversation_.interrupting();
  }
  for (Step& step : steps) {
    for (const Event& event : step.events) emit(event);
    if (!child_) continue;
    for (std::string& line : step.writes) child_->write(std::move(line));
    if (step.close_stdin && !stdin_closed_) {  // every turn has its result: EOF lets Claude exit
      stdin_closed_ = true;
      common::runtime::wind_down(child_, exit_timer_, kExitGrace);
    }
  }
  if (interrupting) arm_interrupt_grace();
}

void Attempt::arm_interrupt_grace() {
  if (grace_armed_ || !child_) return;
  grace_armed_ = true;
  interrupt_timer_.expires_after(spec_.interrupt_grace);
  interrupt_timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    auto self = weak.lock();
    if (ec || !self || !self->child_->running()) return;
    self->forced_after_interrupt_ = true;
    self->child_->terminate(kKillGrace);
  });
}

agentry_status_t Attempt::send_message(std::string_view text) {
  {
    std::lock_guard lock(mutex_);
    std::optional<Step> step = conversation_.on_message(text);
    if (!step) return AGENTRY_ERR_INVALID_STATE;
    queue(std::move(*step));
  }
  executor_.post([self = shared_from_this()] { self->drain(); });
  return AGENTRY_OK;
}

agentry_status_t Attempt::answer_approval(std::string_view approval_id, bool approve) {
  {
    std::lock_guard lock(mutex_);
    std::optional<Step> step = conversation_.on_approval(approval_id, approve);
    if (!step) return AGENTRY_ERR_NOT_FOUND;
    queue(std::move(*step));
  }
  executor_.post([self = shared_from_this()] { self->drain(); });
  return AGENTRY_OK;
}

void Attempt::interrupt(std::string_view reason) {
  {
    std::lock_guard lock(mutex_);
    queue(conversation_.on_interrupt(reason));
  }
  executor_.post([self = shared_from_this()] { self->drain(); });
}

void Attempt::on_exit(common::WaitStatus status) {
  timeout_timer_.cancel();
  interrupt_timer_.cancel();
  exit_timer_.cancel();
  Outcome outcome;
  std::deque<Step> steps;
  {
    std::lock_guard lock(mutex_);
    std::string note;
    if (!conversation_.turns_done()) {
      note = describe_exit(status) + " before its turn ended";
      if (const std::string& tail = child_->stderr_tail(); !tail.empty()) note += "; stderr: " + bounded_text(tail, 2048);
    }
    outcome = conversation_.outcome(note);
    if (forced_after_interrupt_ && outcome.outcome == "interrupted")
      outcome.message += " (claude did not stop within " + std::to_string(spec_.interrupt_grace.count()) +
                         " ms; its process group was terminated)";
    steps.swap(steps_);
  }
  for (const Step& step : steps)
    for (const Event& event : step.events) emit(event);
  finish(outcome, status);
}

void Attempt::emit(const Event& event) noexcept {
  if (finished_) return;
  const bool ephemeral = (event.flags & AGENTRY_EVENT_FLAG_EPHEMERAL) != 0;
  const agentry_status_t status = host_.emit_with_retry(event.type, event.flags, event.payload, ephemeral ? 2s : 30s);
  if (status != AGENTRY_OK)
    host_.log(AGENTRY_LOG_WARNING, "claude: event of type " + std::to_string(event.type) +
                                       " dropped: emit returned " + std::to_string(status));
}

void Attempt::finish(const Outcome& outcome, const std::optional<common::WaitStatus>& status) noexcept {
  if (finished_) return;
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
  finished_ = true;
}

void Attempt::abandon() noexcept {
  finish({"interrupted", "the backend instance was destroyed"}, std::nullopt);
  timeout_timer_.cancel();
  interrupt_timer_.cancel();
  exit_timer_.cancel();
  if (child_) {
    child_->forget_handlers();
    child_->kill();
  }
}

}  // namespace agentry::claude
