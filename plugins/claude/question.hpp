// A question about a run answered by a fork of its Claude session (ext/ask.h): one
// `claude -p --resume <session> --fork-session --no-session-persistence --output-format
// json` whose prompt is the question and the run's state, on the instance's executor.
// The run's own session, and its timeline, never see it.
#pragma once

#include <memory>
#include <string>

#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin_common/runtime/collect.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "config.hpp"

namespace agentry::claude {

class Question : public std::enable_shared_from_this<Question> {
 public:
  // The fork's launch for ext/ask.h's `request_json`, or nullopt with `why`.
  static std::optional<LaunchSpec> launch_for(const std::string& request_json, std::string& why);

  // Starts claude on the executor; the answer goes to the host when it exits.
  static std::shared_ptr<Question> start(plugin::Host& host, plugin_common::runtime::Executor& executor,
                                         std::string ask_id, LaunchSpec launch);
  Question(const Question&) = delete;
  Question& operator=(const Question&) = delete;
  // [executor] The host gave up: the process is killed and no answer is sent.
  void abandon() noexcept;

 private:
  Question(plugin::Host& host, std::string ask_id, LaunchSpec launch)
      : host_(host), ask_id_(std::move(ask_id)), launch_(std::move(launch)) {}
  void begin(plugin_common::runtime::Executor& executor);
  void answer(const std::string& answer_json) noexcept;

  plugin::Host& host_;
  const std::string ask_id_;
  const LaunchSpec launch_;
  std::shared_ptr<plugin_common::runtime::Child> child_;
};

}  // namespace agentry::claude
