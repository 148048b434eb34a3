#pragma once
// One question to a backend (ext/ask.h): a fresh instance, never started, is asked once
// and destroyed when it has answered or the deadline has passed. The calling thread is
// the instance's control context meanwhile (it runs the plugin's on_callback requests),
// so call it where waiting is allowed: never on a request worker or the writer.

#include "core/result.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <string>

namespace agentry::plugin_host {
class PluginRegistry;
}

namespace agentry::engine {

struct BackendQuestion {
  std::string backend;
  std::string ask_id;
  boost::json::object request;  // ext/ask.h's request_json
  std::chrono::milliseconds timeout{60000};
};

enum class QuestionOutcome { answered, backend_error, timeout, not_supported };

struct QuestionResult {
  QuestionOutcome outcome = QuestionOutcome::answered;
  std::string answer;           // answered
  boost::json::object usage;    // answered, when the backend reported it
  std::string error;            // otherwise: why, for people
};

/// Never fails: every way it can go wrong is an outcome with its reason.
QuestionResult put_question(const plugin_host::PluginRegistry& plugins, const BackendQuestion& question);

const char* to_string(QuestionOutcome outcome);

}  // namespace agentry::engine
