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
    emit_serialized(event.type, event.flags, json::serialize(event.payload));
  } catch (...) {
    host_.log(AGENTRY_LOG_ERROR, backend_ + ": an event was lost (out of memory)");
  }
}

void EventSink::emit_serialized(uint16_t type, uint32_t flags, std::string_view payload_json) noexcept {
  if (finished_) return;
  const bool terminal = (flags & AGENTRY_EVENT_FLAG_TERMINAL) != 0;
  finished_ = terminal;
  // A delta nobody could take within a moment is not worth holding the executor for.
  const bool ephemeral = (flags & AGENTRY_EVENT_FLAG_EPHEMERAL) != 0;
  const agentry_status_t status = host_.emit_with_retry(type, flags, payload_json, terminal ? 60s : ephemeral ? 2s : 30s);
  if (status != AGENTRY_OK)
    host_.log(terminal ? AGENTRY_LOG_ERROR : AGENTRY_LOG_WARNING,
              backend_ + ": event of type " + std::to_string(type) + " dropped: emit returned " + std::to_string(status));
}

void EventSink::notice(std::string_view level, std::string_view message) noexcept {
  try {
    emit(runtime::notice(level, message));
  } catch (...) {
  }
}

void EventSink::finish(std::string_view outcome, std::string_view message, std::optional<int> exit_code) noexcept {
  if (finished_) return;
  try {
    json::object payload{{"outcome", outcome}};
    if (!message.empty()) payload["message"] = message;
    if (exit_code) payload["exitCode"] = *exit_code;
    emit_serialized(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, json::serialize(payload));
  } catch (...) {
    emit_serialized(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, R"({"outcome":"error"})");
  }
}

}  // namespace agentry::plugin_common::runtime
