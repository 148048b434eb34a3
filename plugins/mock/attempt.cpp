#include "mock/attempt.hpp"

#include <boost/json/serialize.hpp>
#include <exception>
#include <utility>
#include <variant>

namespace agentry::mock {
namespace json = boost::json;

namespace {
// How long a worker keeps retrying a BUSY host (obligation 9). The terminal event gets
// longer: giving up on it would break obligation 5, so only a wedged host makes it.
constexpr auto kEmitPatience = std::chrono::seconds(30);
constexpr auto kFinishPatience = std::chrono::seconds(120);
}  // namespace

Attempt::Attempt(plugin::Host& host, plugin::StartParams params, Script script)
    : host_(host), params_(std::move(params)), script_(std::move(script)) {}

Attempt::~Attempt() {
  interrupt("the backend instance is being destroyed");
  if (worker_.joinable()) worker_.join();
}

void Attempt::launch() { worker_ = std::thread([this] { run(); }); }

void Attempt::interrupt(std::string_view reason) {
  {
    std::lock_guard lock(mutex_);
    if (interrupted_.load(std::memory_order_relaxed)) return;  // keep the first reason
    reason_ = std::string(reason);
    interrupted_.store(true, std::memory_order_release);
  }
  changed_.notify_all();
}

void Attempt::give_message(std::string text) {
  {
    std::lock_guard lock(mutex_);
    messages_.push_back(std::move(text));
  }
  changed_.notify_all();
}

agentry_status_t Attempt::give_decision(const std::string& approval_id, bool approve) {
  {
    std::lock_guard lock(mutex_);
    if (pending_approval_.empty() || approval_id != pending_approval_ || decision_) return AGENTRY_ERR_NOT_FOUND;
    decision_ = approve;
  }
  changed_.notify_all();
  return AGENTRY_OK;
}

void Attempt::run() noexcept {
  Finish finish{"error", "internal error in the mock backend"};
  try {
    // An outcome a step already reached stands even if an interrupt arrives after it.
    std::optional<Finish> ended = play();
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

std::optional<Finish> Attempt::play() {
  if (!script_.error.empty()) {
    notice("error", script_.error);
    return Finish{"error", script_.error};
  }
  if (params_.resume_token) {
    emit(AGENTRY_EVENT_CHECKPOINT, {{"resumeToken", *params_.resume_token}});
    notice("info", "resumed " + *params_.resume_token);
  } else {
    emit(AGENTRY_EVENT_CHECKPOINT, {{"resumeToken", "mock-" + params_.session_id}});
  }
  for (const Step& s : script_.steps) {
    if (interrupted()) return std::nullopt;  // run() turns it into "interrupted"
    std::optional<Finish> ended = std::visit([this](const auto& st) { return step(st); }, s);
    if (ended) return ended;
  }
  return std::nullopt;
}

bool Attempt::wait_until(Clock::time_point deadline, const std::function<bool()>& ready) {
  std::unique_lock lock(mutex_);
  changed_.wait_until(lock, deadline, [&] { return interrupted() || ready(); });
  return !interrupted();
}

bool Attempt::sleep_until(Clock::time_point deadline) {
  return wait_until(deadline, [] { return false; });
}

bool Attempt::wait_forever(const std::function<bool()>& ready) {
  // In hour-long slices: a time_point::max() deadline overflows inside some
  // condition_variable implementations.
  for (;;) {
    if (!wait_until(Clock::now() + std::chrono::hours(1), ready)) return false;
    std::lock_guard lock(mutex_);
    if (ready()) return true;
  }
}

bool Attempt::pace(Clock::time_point t0, uint64_t i, double rate_hz) {
  if (rate_hz <= 0) return !interrupted();
  const auto due = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(i / rate_hz));
  return sleep_until(due);
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
