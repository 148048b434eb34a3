// The claude child as the backend runtime starts it: the program looked up in the child's
// PATH, the workspace checked, with messages for a person when either is wrong.
#pragma once

#include <cstddef>

#include "agentry/plugin_common/runtime/child.hpp"
#include "config.hpp"

namespace agentry::claude {

// Throws std::runtime_error ("command 'claude' not found in PATH (set backendConfig.binary ...)").
plugin_common::runtime::ChildSpec claude_child(const LaunchSpec& spec, std::size_t max_stdout_line);

}  // namespace agentry::claude
