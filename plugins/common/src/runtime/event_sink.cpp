#include "agentry/plugin_common/runtime/event_sink.hpp"

#include <chrono>

#include <boost/json/serialize.hpp>

#include "agentry/plugin/events.h"

namespace agentry::plugin_common::runtime {

namespace json = boost::json;
using namespace std::chrono_literals;

Event notice(std::string_view level, std::string_view message) {
  return Event{AGENTRY_EVENT_NOTICE, 0, json::object{{"level", level}, {"message", message}}};
}

void EventSink::emit(const Event& event) noexcept {
  if (finished_) return;
  try {
    // A delta nobody could take within a moment is not worth holding the executor for.
    const bool ephemeral = (event.flags & AGENTRY_EVENT_FLAG_EPHEMERAL) != 0;
    const agentry_status_t status =
        host_.emit_with_retry(event.type, event.flags, json::serialize(event.payload), ephemeral ? 2s : 30s);
    if (status != AGENTRY_OK)
      host_.log(AGENTRY_LOG_WARNING, backend_ + ": event of type " + std::to_string(event.type) +
                                         " dropped: emit returned " + std::to_string(status));
  } catch (...) {
    host_.log(AGENTRY_LOG_ERROR, backend_ + ": an event was lost (out of memory)");
  }
}

void EventSink::notice(std::string_view level, std::string_view message) noexcept {
  try {
    emit(runtime::notice(level, message));
  } catch (...) {
  }
}

void EventSink::finish(std::string_view outcome, std::string_view message, std::optional<int> exit_code) noexcept {
  if (finished_) return;
  finished_ = true;
  try {
    json::object payload{{"outcome", outcome}};
    if (!message.empty()) payload["message"] = message;
    if (exit_code) payload["exitCode"] = *exit_code;
    host_.emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, json::serialize(payload), 60s);
  } catch (...) {
    host_.emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, R"({"outcome":"error"})", 60s);
  }
}

}  // namespace agentry::plugin_common::runtime
