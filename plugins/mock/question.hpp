// The mock's answer to a question (ext/ask.h), for tests of the host's ask: it repeats
// what the host told it about the run, so a test can check the request, and can be told
// to fail, to refuse or to never answer by backendConfig.ask:
//   {"mode": "answer"|"error"|"unsupported"|"hang", "delayMs": N}   (default: answer, 0)
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "agentry/plugin/cpp/backend.hpp"

namespace agentry::mock {

class Question {
 public:
  // Parses the request; AGENTRY_ERR_UNSUPPORTED / INVALID_ARGUMENT without starting anything.
  static agentry_status_t check(const std::string& request_json);

  Question(plugin::Host& host, std::string ask_id, std::string request_json);
  ~Question();  // abandons the question and joins its thread
  Question(const Question&) = delete;
  Question& operator=(const Question&) = delete;

 private:
  void run() noexcept;

  plugin::Host& host_;
  const std::string ask_id_;
  const std::string request_json_;
  std::mutex mutex_;
  std::condition_variable cancelled_cv_;
  bool cancelled_ = false;
  std::thread worker_;
};

}  // namespace agentry::mock
