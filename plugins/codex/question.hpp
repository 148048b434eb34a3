// A question about a run answered by a fork of its Codex thread (ext/ask.h): the same
// Session an attempt uses, told to thread/fork (ephemeral) instead of resuming, with a
// read-only sandbox and no approvals. Its events go to a host table of our own, which
// keeps the last message and answers the question when the turn ends; the run's host
// sees none of them.
#pragma once

#include <memory>
#include <string>

#include "agentry/plugin/cpp/host.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "config.hpp"

namespace agentry::codex {

class Session;

class Question {
 public:
  // The attempt config for `request_json` (ext/ask.h), or nullopt with `why` set.
  static std::optional<AttemptConfig> config_for(const std::string& request_json, std::string& why);

  // Starts the fork's session on `executor`.
  Question(const agentry_host_t* host, plugin_common::runtime::Executor& executor, std::string ask_id,
           AttemptConfig config);
  ~Question();
  Question(const Question&) = delete;
  Question& operator=(const Question&) = delete;

  // [executor] The host gave up on the question: the fork's session stops, unanswered.
  void abandon() noexcept;

 private:
  static agentry_status_t emit(const agentry_host_t* table, const agentry_event_t* event) noexcept;
  static void log(const agentry_host_t* table, int32_t severity, const char* message) noexcept;
  static void request_callback(const agentry_host_t*) noexcept {}
  static const void* get_extension(const agentry_host_t* table, const char* id) noexcept;
  void on_event(uint16_t type, const std::string& payload);

  const agentry_host_t* real_;  // the instance's host: logs, and the answer
  const std::string ask_id_;
  agentry_host_t table_{};      // what the session emits to
  plugin::Host host_;
  // Executor only (the session emits there):
  std::string last_message_;
  std::string usage_json_;
  bool answered_ = false;
  std::shared_ptr<Session> session_;
};

}  // namespace agentry::codex
