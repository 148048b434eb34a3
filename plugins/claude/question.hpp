// A question about a run answered by a fork of its Claude session (ext/ask.h): one
// `claude -p --resume <session> --fork-session --no-session-persistence --output-format
// json` whose prompt is the question and the run's state, on a thread of its own. The
// run's own session, and its timeline, never see it.
#pragma once

#include <atomic>
#include <string>
#include <thread>

#include "agentry/plugin/cpp/backend.hpp"

namespace agentry::claude {

class Question {
 public:
  // The launch for `request_json`, or why there is none (INVALID_ARGUMENT then).
  static agentry_status_t check(const std::string& request_json, std::string& why);

  Question(plugin::Host& host, std::string ask_id, std::string request_json);
  ~Question();  // kills the claude process of an unanswered question and joins
  Question(const Question&) = delete;
  Question& operator=(const Question&) = delete;

 private:
  void run() noexcept;
  std::string answer_json();  // {"answer", "usage"?} or {"error"}

  plugin::Host& host_;
  const std::string ask_id_;
  const std::string request_json_;
  std::atomic<bool> cancelled_{false};
  std::thread worker_;
};

}  // namespace agentry::claude
