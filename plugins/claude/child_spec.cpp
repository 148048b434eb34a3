#include "child_spec.hpp"

#include <stdexcept>

#include "agentry/plugin_common/environment.hpp"

namespace agentry::claude {

namespace common = agentry::plugin_common;

common::runtime::ChildSpec claude_child(const LaunchSpec& spec, std::size_t max_stdout_line) {
  if (std::string error = common::check_workspace(spec.cwd); !error.empty()) throw std::runtime_error(error);
  const common::ResolvedProgram program = common::resolve_program(spec.argv.front(), spec.env, spec.cwd);
  if (!program.error.empty())
    throw std::runtime_error(program.error +
                             " (set backendConfig.binary or AGENTRY_CLAUDE_BIN to the native claude binary, e.g. "
                             "node_modules/@anthropic-ai/claude-code-linux-x64/claude)");
  common::runtime::ChildSpec child{program.path, spec.argv, spec.env, spec.cwd};
  child.max_stdout_line = max_stdout_line;
  child.stderr_tail_bytes = 2 * 1024;  // quoted when Claude dies early
  return child;
}

}  // namespace agentry::claude
