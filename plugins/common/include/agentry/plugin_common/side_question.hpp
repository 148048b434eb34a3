// A question about a run (ext/ask.h) answered by a fork of the run's own conversation
// (claude, codex): the start params such a fork gets. Its prompt gives what the host knows
// of the run (status, tasks), then the question on a line of its own.
#pragma once

#include <optional>
#include <string>

#include "agentry/plugin/cpp/params.hpp"

namespace agentry::plugin_common {

// The run's config, workspace and resume token from ext/ask.h's request, with the side
// question as input_json's prompt; nullopt, with `why`, for a request that lacks them.
std::optional<plugin::StartParams> side_question_params(const std::string& request_json, std::string& why);

}  // namespace agentry::plugin_common
