// A question about a run answered by a fork of its Claude session (ext/ask.h): one
// `claude -p --resume <session> --fork-session --no-session-persistence --output-format
// json` whose prompt is the question and the run's state, on a thread of its own. The
// run's own session, and its timeline, never see it.
#pragma once

#include <atomic>
#include <string>
#include <thread>

#include "agentry/plugin/cpp/backend.hpp"
#include "config.hpp"

namespace agentry::claude {

class Question {
 public:
  // The fork's launch for ext/ask.h's `request_json`, or nullopt with `why`.
  static std::optional<LaunchSpec> launch_for(const std::string& request_json, std::string& why);

  Question(plugin::Host& host, std::string ask_id, LaunchSpec launch);
  ~Question();  // kills the claude process of an unanswered question and joins
  Question(const Question&) = delete;
  Question& operator=(const Question&) = delete;

 private:
  void run() noexcept;
  std::string answer_json();  // {"answer", "usage"?} or {"error"}

  plugin::Host& host_;
  const std::string ask_id_;
  const LaunchSpec launch_;
  std::atomic<bool> cancelled_{false};
  std::thread worker_;
};

}  // namespace agentry::claude
