// The prompt an agent's fork gets for a question about its run (ext/ask.h): what the
// host knows of the run (status, tasks), then the question on a line of its own. Shared
// by the backends that answer from a fork of the run's own conversation (claude, codex).
#pragma once

#include <string>

namespace agentry::plugin_common {

// `request_json` is ext/ask.h's request; a malformed one gives a prompt with only the frame.
std::string side_question_prompt(const std::string& request_json);

}  // namespace agentry::plugin_common
