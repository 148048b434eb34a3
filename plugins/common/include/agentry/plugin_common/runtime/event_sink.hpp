// Events on their way to the host from a backend's executor: JSON payloads serialized
// once, BUSY retried (obligation 9), nothing after the terminal FINISHED (obligation 6).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "agentry/plugin/cpp/host.hpp"

namespace agentry::plugin_common::runtime {

struct Event {
  uint16_t type = 0;   // AGENTRY_EVENT_*
  uint32_t flags = 0;  // AGENTRY_EVENT_FLAG_*
  boost::json::object payload;
};

// {"level": level, "message": message}.
Event notice(std::string_view level, std::string_view message);

class EventSink {
 public:
  // `backend` prefixes the log lines ("acp: the host refused ...").
  EventSink(agentry::plugin::Host& host, std::string backend) : host_(host), backend_(std::move(backend)) {}

  void emit(const Event& event) noexcept;
  // An event whose payload is serialized already; a TERMINAL one is the FINISHED.
  void emit_serialized(uint16_t type, uint32_t flags, std::string_view payload_json) noexcept;
  void notice(std::string_view level, std::string_view message) noexcept;
  // FINISHED {outcome, message?, exitCode?}, once; later calls and events are dropped.
  void finish(std::string_view outcome, std::string_view message, std::optional<int> exit_code) noexcept;
  bool finished() const noexcept { return finished_; }

 private:
  agentry::plugin::Host& host_;
  const std::string backend_;
  bool finished_ = false;
};

}  // namespace agentry::plugin_common::runtime
