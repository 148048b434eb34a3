#include "cli/compat/agent_runner_args.hpp"

#include <algorithm>

namespace agentry::cli::compat {
namespace {

// Every option the supported commands know, and whether it takes a value. agent-runner's
// other options (the commands agentry leaves to agent-runner's own CLI) are unknown here.
const std::map<std::string, bool>& known_options() {
  static const std::map<std::string, bool> options{
      {"--connect", true},        {"--output-format", true},      {"--field", true},
      {"--status", true},         {"--notes", true},              {"--text", true},
      {"--title", true},          {"--body", true},               {"--agent", true},
      {"--assignment", true},     {"--var", true},                {"--name", true},
      {"--cwd", true},            {"--message-file", true},       {"--parent-run", true},
      {"--group-id", true},       {"--resume-run", true},         {"--scope", true},
      {"--add-task", true},       {"--launcher", true},           {"--environment", true},
      {"--model", true},          {"--effort", true},             {"--timeout-sec", true},
      {"--max-retries", true},       {"--run-id", true},
      {"--detach", false},        {"--no-inherit-run-group", false},
      {"--no-notify-parent-on-complete", false},                   {"--help", false},
      {"--backend", true},        {"--unrestricted", false},      {"--limit", true},
      {"--clear", false},         {"--run", true},                {"--group", true},
      {"--at", true},             {"--delay", true},              {"--cron", true},
      {"--timezone", true},       {"--mode", true},               {"--continue-on-failure", false},
      {"--schedule-at", true},    {"--schedule-delay", true},     {"--schedule-cron", true},
      {"--schedule-timezone", true}, {"--schedule-mode", true},   {"--schedule-continue-on-failure", false},
      {"--repo", true},           {"--global", false},            {"--include-archived", false},
  };
  return options;
}

/// agent-runner's options for what agentry's command set leaves out: named as such
/// rather than as unknown, so that a definition's author knows what to change.
bool is_unsupported_agent_runner_option(const std::string& name) {
  static const std::vector<std::string> names{"--backend-session-id", "--mime-type", "--listen", "--connect-host",
                                              "--connect-local-port"};
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::optional<std::string> AgentRunnerArgs::value(const std::string& option) const {
  auto it = options.find(option);
  if (it == options.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

const std::vector<std::string>& AgentRunnerArgs::values(const std::string& option) const {
  static const std::vector<std::string> none;
  auto it = options.find(option);
  return it == options.end() ? none : it->second;
}

std::vector<std::string> AgentRunnerArgs::others(const std::vector<std::string>& allowed) const {
  std::vector<std::string> out;
  for (const auto& [name, values] : options)
    if (name != "--connect" && name != "--help" && std::find(allowed.begin(), allowed.end(), name) == allowed.end())
      out.push_back(name);
  return out;
}

core::Result<AgentRunnerArgs> parse_agent_runner_args(const std::vector<std::string>& args) {
  AgentRunnerArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      out.words.insert(out.words.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (arg == "-h") {
      out.options["--help"].emplace_back();
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-' || arg == "-") {
      out.words.push_back(arg);
      continue;
    }
    const auto eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    auto known = known_options().find(name);
    if (known == known_options().end() && is_unsupported_agent_runner_option(name))
      return core::fail(core::ErrorCode::invalid_request,
                        name + " is agent-runner's, but agentry's agent-runner command does not take it; use "
                               "agent-runner's own CLI against agentry's compat listener (docs/agent-runner.md)");
    if (known == known_options().end())
      return core::fail(core::ErrorCode::invalid_request,
                        "unknown option " + name + " (agentry's agent-runner command supports: agent-runner --help)");
    if (!known->second) {
      if (eq != std::string::npos)
        return core::fail(core::ErrorCode::invalid_request, name + " takes no value (got '" + arg + "')");
      out.options[name].emplace_back();
      continue;
    }
    if (eq != std::string::npos) {
      out.options[name].push_back(arg.substr(eq + 1));
      continue;
    }
    if (i + 1 >= args.size())
      return core::fail(core::ErrorCode::invalid_request, name + " needs a value");
    out.options[name].push_back(args[++i]);
  }
  return out;
}

}  // namespace agentry::cli::compat
