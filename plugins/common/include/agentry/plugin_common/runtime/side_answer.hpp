// The answer to a question about a run (ext/ask.h) from a backend whose fork of the run's
// session answers it (acp, pi): the fork's message text is gathered instead of going to
// the timeline, and the host gets {"answer"} or {"error"} exactly once.
#pragma once

#include <optional>
#include <string>

#include "agentry/plugin/cpp/host.hpp"
#include "agentry/plugin_common/runtime/event_sink.hpp"

namespace agentry::plugin_common::runtime {

class SideAnswer {
 public:
  // `backend` prefixes the log lines.
  SideAnswer(std::string ask_id, std::string backend) : ask_id_(std::move(ask_id)), backend_(std::move(backend)) {}

  // Keeps the text of a completed message; every other event is the fork's own business.
  void take(const Event& event);
  // {"answer": the messages} after a success with text, else {"error": why}; once.
  void send(agentry::plugin::Host& host, const std::string& outcome, const std::string& message) noexcept;
  // A question the host gave up on (its instance is destroyed) gets no answer.
  void drop() noexcept { ask_id_.reset(); }

 private:
  std::optional<std::string> ask_id_;  // until answered
  const std::string backend_;
  std::string text_;
};

}  // namespace agentry::plugin_common::runtime
