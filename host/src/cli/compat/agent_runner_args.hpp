#pragma once
// agent-runner's command line as words and options: `--name value`, `--name=value`,
// repeatable options, boolean flags, `--` ending the options. An option agent-runner's
// command set does not have is refused here; whether a command takes an option it has
// is each command's check (ArgumentsOf::refuse_others).

#include "core/result.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace agentry::cli::compat {

struct AgentRunnerArgs {
  std::vector<std::string> words;  // everything that is not an option, in order
  std::map<std::string, std::vector<std::string>> options;  // "--field" -> its values ("" for a flag)

  bool has(const std::string& option) const { return options.count(option) > 0; }
  /// The option's last value; nullopt when not given.
  std::optional<std::string> value(const std::string& option) const;
  const std::vector<std::string>& values(const std::string& option) const;
  /// The options given that are not in `allowed` (--connect and --help are always
  /// allowed), for a refusal naming them.
  std::vector<std::string> others(const std::vector<std::string>& allowed) const;
};

/// INVALID_REQUEST naming an unknown option, or an option missing its value.
core::Result<AgentRunnerArgs> parse_agent_runner_args(const std::vector<std::string>& args);

}  // namespace agentry::cli::compat
