#include "mock/attempt.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/json/serialize.hpp>
#include <exception>
#include <utility>
#include <variant>

namespace agentry::mock {
namespace asio = boost::asio;
namespace json = boost::json;
namespace rt = agentry::plugin_common::runtime;

namespace {
// How long the script keeps retrying a BUSY host (obligation 9). The terminal event gets
// longer: giving up on it would break obligation 5, so only a wedged host makes it.
constexpr auto kEmitPatience = std::chrono::seconds(30);
constexpr auto kFinishPatience = std::chrono::seconds(120);
}  // namespace

Attempt::Attempt(plugin::Host& host, rt::Executor& executor, plugin::StartParams params, Script script)
    : host_(host),
      executor_(executor),
      params_(std::move(params)),
      script_(std::move(script)),
      changed_(executor.get_executor()) {}

std::shared_ptr<Attempt> Attempt::start(plugin::Host& host, rt::Executor& executor, plugin::StartParams params,
                                        Script script) {
  std::shared_ptr<Attempt> attempt(new Attempt(host, executor, std::move(params), std::move(script)));
  asio::co_spawn(executor.get_executor(), attempt->run(),
                 [attempt](std::exception_ptr) { attempt->finished_promise_.set_value(); });
  return attempt;
}

void Attempt::poke() {
  executor_.post([self = shared_from_this()] { self->changed_.notify(); });
}

void Attempt::interrupt(std::string_view reason) {
  {
    std::lock_guard lock(mutex_);
    if (interrupted_.load(std::memory_order_relaxed)) return;  // keep the first reason
    reason_ = std::string(reason);
    interrupted_.store(true, std::memory_order_release);
  }
  executor_.post([self = shared_from_this()] {
    if (self->exec_child_) self->exec_child_->kill();  // an exec step's whole group, at once
    self->changed_.notify();
  });
}

void Attempt::give_message(std::string text) {
  {
    std::lock_guard lock(mutex_);
    messages_.push_back(std::move(text));
  }
  poke();
}

agentry_status_t Attempt::give_decision(const std::string& approval_id, bool approve) {
  {
    std::lock_guard lock(mutex_);
    if (pending_approval_.empty() || approval_id != pending_approval_ || decision_) return AGENTRY_ERR_NOT_FOUND;
    decision_ = approve;
  }
  poke();
  return AGENTRY_OK;
}

Attempt::Task<void> Attempt::run() {
  Finish finish{"error", "internal error in the mock backend"};
  try {
    // An outcome a step already reached stands even if an interrupt arrives after it.
    std::optional<Finish> ended = co_await play();
    if (ended) {
      finish = std::move(*ended);
    } else if (interrupted()) {
      std::lock_guard lock(mutex_);
      finish = Finish{"interrupted", reason_};
    } else {
      finish = Finish{"success", ""};
    }
  } catch (const std::exception& e) {
    finish.message += std::string(": ") + e.what();
  } catch (...) {
  }
  finishing_.store(true, std::memory_order_release);
  try {
    json::object payload{{"outcome", finish.outcome}};
    if (!finish.message.empty()) payload["message"] = finish.message;
    const std::string text = json::serialize(payload);
    const agentry_status_t st =
        host_.emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, text, kFinishPatience);
    if (st != AGENTRY_OK) host_.log(AGENTRY_LOG_ERROR, "mock: the host refused FINISHED: " + std::to_string(st));
  } catch (...) {
    // Out of memory while building the last payload: a fixed one needs no allocation.
    static constexpr std::string_view kFallback = R"({"outcome":"error"})";
    host_.emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, kFallback, kFinishPatience);
  }
}

Attempt::Task<std::optional<Finish>> Attempt::play() {
  if (!script_.error.empty()) {
    notice("error", script_.error);
    co_return Finish{"error", script_.error};
  }
  if (params_.resume_token) {
    emit(AGENTRY_EVENT_CHECKPOINT, {{"resumeToken", *params_.resume_token}});
    notice("info", "resumed " + *params_.resume_token);
  } else {
    emit(AGENTRY_EVENT_CHECKPOINT, {{"resumeToken", "mock-" + params_.session_id}});
  }
  for (const Step& s : script_.steps) {
    if (interrupted()) co_return std::nullopt;  // run() turns it into "interrupted"
    Task<std::optional<Finish>> next = std::visit([this](const auto& st) { return step(st); }, s);
    std::optional<Finish> ended = co_await std::move(next);
    if (ended) co_return ended;
  }
  co_return std::nullopt;
}

Attempt::Task<bool> Attempt::wait_until(Clock::time_point deadline, std::function<bool()> ready) {
  for (;;) {
    if (interrupted()) co_return false;
    {
      std::lock_guard lock(mutex_);
      if (ready()) co_return true;
    }
    if (Clock::now() >= deadline) co_return true;
    co_await changed_.wait_until(deadline);
  }
}

Attempt::Task<bool> Attempt::sleep_until(Clock::time_point deadline) {
  co_return co_await wait_until(deadline, [] { return false; });
}

Attempt::Task<bool> Attempt::wait_forever(std::function<bool()> ready) {
  for (;;) {
    const Clock::time_point slice = Clock::now() + std::chrono::hours(1);
    if (!co_await wait_until(slice, ready)) co_return false;
    std::lock_guard lock(mutex_);
    if (ready()) co_return true;
  }
}

Attempt::Task<bool> Attempt::pace(Clock::time_point t0, uint64_t i, double rate_hz) {
  if (rate_hz <= 0) co_return !interrupted();
  const auto due = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(i / rate_hz));
  co_return co_await sleep_until(due);
}

void Attempt::emit(uint16_t type, const json::object& payload, uint32_t flags) {
  emit_text(type, json::serialize(payload), flags);
}

void Attempt::emit_text(uint16_t type, std::string_view payload, uint32_t flags) {
  const agentry_status_t st = host_.emit_with_retry(type, flags, payload, kEmitPatience);
  if (st != AGENTRY_OK)
    host_.log(AGENTRY_LOG_WARNING,
              "mock: event type " + std::to_string(type) + " refused by the host: status " + std::to_string(st));
}

void Attempt::notice(const std::string& level, const std::string& message) {
  emit(AGENTRY_EVENT_NOTICE, {{"level", level}, {"message", message}});
}

std::string Attempt::next_id(const char* prefix) {
  return std::string(prefix) + "-" + std::to_string(params_.attempt_number) + "-" + std::to_string(++ids_);
}

}  // namespace agentry::mock
