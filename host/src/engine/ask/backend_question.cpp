#include "engine/ask/backend_question.hpp"

#include "core/log.hpp"
#include "plugin_host/plugin_registry.hpp"

#include <boost/json/serialize.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>

namespace agentry::engine {
namespace json = boost::json;

namespace {

/// What the asked instance reaches: its answer, its callback requests, its logs. Events
/// are dropped: an ask must leave the run's history as it was.
class QuestionSink final : public plugin_host::BackendEventSink {
 public:
  QuestionSink(std::string ask_id, std::string backend) : ask_id_(std::move(ask_id)), backend_(std::move(backend)) {}

  bool offer(plugin_host::BackendEvent event) override {
    if (!warned_events_) {
      warned_events_ = true;
      core::log_warn("backend emitted events while answering a question; they are dropped",
                     {{"backend", backend_}, {"kind", event.kind}});
    }
    return true;
  }
  void on_log(int severity, std::string message, int policy) override {
    if (policy > 0 || severity >= 3) core::log_warn(message, {{"backend", backend_}, {"askId", ask_id_}});
    else core::log_info(message, {{"backend", backend_}, {"askId", ask_id_}});
  }
  void on_callback_requested() override {
    {
      std::lock_guard lock(mutex_);
      callback_ = true;
    }
    changed_.notify_all();
  }
  bool on_answer(const std::string& ask_id, json::object answer) override {
    {
      std::lock_guard lock(mutex_);
      if (ask_id != ask_id_ || answer_) return false;
      answer_ = std::move(answer);
    }
    changed_.notify_all();
    return true;
  }

  /// Waits for the answer, running callback requests on this thread; nullopt at the deadline.
  std::optional<json::object> wait(plugin_host::BackendInstance& session, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (!changed_.wait_until(lock, deadline, [&] { return answer_.has_value() || callback_; })) return std::nullopt;
      if (answer_) return answer_;
      callback_ = false;
      lock.unlock();
      session.on_callback();
      lock.lock();
    }
  }

 private:
  const std::string ask_id_;
  const std::string backend_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool callback_ = false;
  std::optional<json::object> answer_;
  std::atomic<bool> warned_events_{false};
};

}  // namespace

const char* to_string(QuestionOutcome outcome) {
  switch (outcome) {
    case QuestionOutcome::answered: return "answered";
    case QuestionOutcome::backend_error: return "backend_error";
    case QuestionOutcome::timeout: return "timeout";
    case QuestionOutcome::not_supported: return "not_supported";
  }
  return "backend_error";
}

QuestionResult put_question(const plugin_host::PluginRegistry& plugins, const BackendQuestion& q) {
  QuestionResult result;
  const auto deadline = std::chrono::steady_clock::now() + q.timeout;
  // The sink outlives the session: destroying the instance joins every thread that
  // could still call it.
  QuestionSink sink(q.ask_id, q.backend);
  auto session = plugins.create(q.backend, sink);
  if (!session) {
    result.outcome = QuestionOutcome::backend_error;
    result.error = session.error().message;
    return result;
  }
  if (auto asked = (*session)->ask(q.ask_id, json::serialize(q.request)); !asked) {
    const auto* reason = asked.error().details.if_contains("reason");
    result.outcome = reason && reason->is_string() && reason->get_string() == "not_supported"
                         ? QuestionOutcome::not_supported
                         : QuestionOutcome::backend_error;
    result.error = asked.error().message;
    return result;
  }
  auto answer = sink.wait(**session, deadline);
  if (!answer) {
    result.outcome = QuestionOutcome::timeout;
    result.error = "backend '" + q.backend + "' did not answer within " + std::to_string(q.timeout.count()) + " ms";
    return result;
  }
  const json::value* text = answer->if_contains("answer");
  if (text && text->is_string()) {
    result.answer = std::string(text->get_string());
    if (const json::value* usage = answer->if_contains("usage"); usage && usage->is_object())
      result.usage = usage->get_object();
    return result;
  }
  result.outcome = QuestionOutcome::backend_error;
  const json::value* error = answer->if_contains("error");
  result.error = "backend '" + q.backend + "' could not answer: " +
                 (error && error->is_string() ? std::string(error->get_string())
                                              : std::string("its reply had neither \"answer\" nor \"error\""));
  return result;
}

}  // namespace agentry::engine
