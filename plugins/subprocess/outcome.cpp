#include "outcome.hpp"

#include <cstring>

#include <boost/json.hpp>

#include "agentry/plugin/cpp/json.hpp"
#include "agentry/plugin/events.h"
#include "agentry/plugin_common/line_splitter.hpp"

namespace agentry::subprocess {

namespace json = boost::json;

std::string signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
}

Event finished_event(const AttemptEnd& end) {
  std::string outcome = "error";
  std::string message;
  if (!end.start_error.empty()) {
    message = end.start_error;
  } else if (!end.internal_error.empty()) {
    message = "subprocess backend failure: " + end.internal_error;
  } else if (end.stop == StopReason::interrupted) {
    outcome = "interrupted";
    message = end.interrupt_reason.empty() ? "interrupted" : "interrupted: " + end.interrupt_reason;
  } else if (end.stop == StopReason::timed_out) {
    message = "timed out after " + std::to_string(end.timeout_sec) + " s";
  } else if (end.signal) {
    message = "command killed by signal " + std::to_string(*end.signal) + " (" + signal_name(*end.signal) + ")";
  } else if (end.exit_code && *end.exit_code != 0) {
    message = "command exited with code " + std::to_string(*end.exit_code);
    if (end.declared && end.declared->error && end.declared->message) message += ": " + *end.declared->message;
  } else if (end.declared && end.declared->error) {
    message = end.declared->message.value_or("the agent reported an error");
  } else {
    outcome = "success";
    if (end.declared && end.declared->message) message = *end.declared->message;
  }

  json::object payload;
  payload["outcome"] = outcome;
  constexpr std::size_t kMaxMessage = 64 * 1024;  // keeps the payload far below the limit
  message.resize(plugin_common::utf8_prefix_length(message, kMaxMessage));
  if (!message.empty()) payload["message"] = agentry::plugin::sanitize_utf8(message);
  if (end.exit_code) payload["exitCode"] = *end.exit_code;
  if (end.signal) payload["signal"] = *end.signal;
  return Event{AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, json::serialize(payload)};
}

}  // namespace agentry::subprocess
