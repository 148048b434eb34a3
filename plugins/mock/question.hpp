// The mock's answer to a question (ext/ask.h), for tests of the host's ask: it repeats
// what the host told it about the run, so a test can check the request, and can be told
// to fail, to refuse or to never answer by backendConfig.ask:
//   {"mode": "answer"|"error"|"unsupported"|"hang", "delayMs": N}   (default: answer, 0)
// The delay is a timer on the instance's executor.
#pragma once

#include <memory>
#include <string>

#include <boost/asio/steady_timer.hpp>

#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"

namespace agentry::mock {

class Question : public std::enable_shared_from_this<Question> {
 public:
  // Parses the request; AGENTRY_ERR_UNSUPPORTED / INVALID_ARGUMENT without starting anything.
  static agentry_status_t check(const std::string& request_json);

  // [control] Answers after the configured delay (never, for "hang").
  static std::shared_ptr<Question> start(plugin::Host& host, plugin_common::runtime::Executor& executor,
                                         std::string ask_id, std::string request_json);
  Question(const Question&) = delete;
  Question& operator=(const Question&) = delete;

  // [executor] The host gave up on it (its instance is destroyed): no answer comes.
  void abandon() noexcept;

 private:
  Question(plugin::Host& host, plugin_common::runtime::Executor& executor, std::string ask_id,
           std::string request_json);
  void begin();
  void answer() noexcept;

  plugin::Host& host_;
  const std::string ask_id_;
  const std::string request_json_;
  boost::asio::steady_timer delay_;
  bool abandoned_ = false;
};

}  // namespace agentry::mock
