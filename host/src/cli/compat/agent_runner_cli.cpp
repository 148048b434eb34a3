// agent-runner's command set for agents, on agentry's operations: which command a line
// is, and what every command shares. The commands that start or resume runs hand
// translated options to agentry's own `run`/`init`/`resume` (commands/run_commands.cpp),
// which start, follow and exit by status; the others call one operation each (reading
// the run before where agent-runner answers whether anything changed) and print its
// answer in agent-runner's shape. The commands, by job: agent_runner_invocation.hpp.

#include "cli/compat/agent_runner_cli.hpp"

#include "cli/compat/agent_runner_invocation.hpp"
#include "cli/paths.hpp"
#include "core/log.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>

namespace agentry::cli::compat {
namespace json = boost::json;

const char* const own_cli_pointer =
    "agentry's agent-runner command has the commands agents run and the run settings (agent-runner --help); for "
    "the others, use agent-runner's own CLI against agentry's compat listener (docs/agent-runner.md)";

namespace {

/// The `run` subcommands of agent-runner's that agentry leaves to its own CLI.
bool is_unsupported_run_verb(const std::string& word) {
  static const std::vector<std::string> verbs{"abort", "cancel", "workspace", "timeline"};
  return std::find(verbs.begin(), verbs.end(), word) != verbs.end();
}

bool is_metadata_verb(const std::string& word) {
  static const std::vector<std::string> verbs{
      "set-name", "set-note", "clear-note", "pin", "unpin", "archive", "unarchive", "set-group", "clear-group",
      "set-backend-session", "clear-backend-session", "add-dep", "remove-dep", "clear-deps"};
  return std::find(verbs.begin(), verbs.end(), word) != verbs.end();
}

}  // namespace

int Invocation::usage(const std::string& message, int code) {
  ctx_.err() << "agent-runner: " << message << "\n";
  return code;
}

int Invocation::failed(const core::Error& error) {
  ctx_.err() << "agent-runner: " << error.message << "\n";
  // agent-runner counts an unreachable daemon as a refusal (3), as a bad request.
  return error.code == core::ErrorCode::internal ? exit_code::runtime_error : exit_code::config_error;
}

std::optional<int> Invocation::refuse_others(const std::string& command, const std::vector<std::string>& allowed,
                                             int code) {
  auto others = args_.others(allowed);
  if (!others.empty()) {
    std::string names;
    for (const auto& o : others) names += (names.empty() ? "" : ", ") + o;
    return usage(command + " does not take " + names, code);
  }
  if (auto format = args_.value("--output-format"); format && *format != "text" && *format != "json")
    return usage("--output-format is text or json (got '" + *format + "')", code);
  return std::nullopt;
}

std::optional<int> Invocation::want_words(const std::string& command, std::size_t skip,
                                          const std::vector<std::string>& names, int code) {
  const std::size_t given = args_.words.size() - std::min(skip, args_.words.size());
  if (given == names.size()) return std::nullopt;
  std::string wanted;
  for (const auto& n : names) wanted += " <" + n + ">";
  if (given < names.size()) return usage(command + " needs" + wanted, code);
  return usage(command + " takes" + wanted + " only (got extra '" + args_.words[skip + names.size()] + "')", code);
}

std::string Invocation::words_from(std::size_t from) const {
  std::string out;
  for (std::size_t i = from; i < args_.words.size(); ++i) out += (i > from ? " " : "") + word(i);
  return out;
}

int Invocation::print_json(const json::value& value) {
  ctx_.out() << pretty_json(value);
  return exit_code::success;
}

int Invocation::print_line(const std::string& line) {
  ctx_.out() << line << "\n";
  return exit_code::success;
}

api::compat::CompatFacts Invocation::facts() {
  api::compat::CompatFacts f;
  f.now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                 .count();
  if (auto info = ctx_.call("daemon.info", {}); info && info->is_object())
    if (auto* daemon = info->as_object().if_contains("daemon"); daemon && daemon->is_object())
      if (auto* id = daemon->as_object().if_contains("daemonInstanceId"); id && id->is_string())
        f.daemon_instance_id = std::string(id->as_string());
  // Where the compat listener says runs' workspaces are (serve: <home>/compat/runs). A
  // connected call assumes the daemon shares this process's AGENTRY_HOME, as agents' do.
  if (auto paths = resolve_paths(ctx_.global().settings)) f.workspace_root = paths->home / "compat" / "runs";
  return f;
}

core::Result<json::object> Invocation::native_run(const std::string& run_id) {
  auto native = ctx_.call("runs.get", json::object{{"runId", run_id}});
  if (!native) return native.failure();
  return std::move(native->as_object().at("run").as_object());
}

int Invocation::dispatch() {
  if (args_.words.empty() || args_.has("--help") || word(0) == "help") {
    ctx_.out() << help_text();
    return exit_code::success;
  }
  const std::string& command = word(0);
  if (command == "run") {
    if (args_.words.size() >= 2) {
      const std::string& verb = word(1);
      if (verb == "status") return run_status();
      if (verb == "brief") return run_brief();
      if (verb == "ready") return run_ready();
      if (verb == "reset") return run_reset();
      if (verb == "reconfigure") return run_reconfigure();
      if (verb == "schedule") return run_schedule();
      if (verb == "delete") return run_delete();
      if (verb == "audit") return run_audit();
      if (verb == "queue-message") return queue_message();
      if (verb == "queued-messages") return queued_messages();
      if (verb == "remove-queued-message") return remove_queued_message();
      if (is_metadata_verb(verb)) return metadata_command(verb);
      if (verb == "environment")
        return usage("run environment is not supported: agentry runs agent-runner's container environments its own "
                     "way; use `agentry environments status|cleanup`");
      if (is_unsupported_run_verb(verb)) return usage("run " + verb + " is not supported here: " + own_cli_pointer);
    }
    return args_.has("--resume-run") ? resume() : start(false);
  }
  if (command == "init") return start(true);
  if (command == "task") return task_command();
  if (command == "attachment") return attachment_command();
  if (command == "list") return list_command();
  if (command == "show") return show_command();
  return usage("'" + command + "' is not supported here: " + own_cli_pointer);
}

int run_agent_runner(const std::vector<std::string>& args, Environment env, std::ostream& out, std::ostream& err,
                     ClientFactory factory) {
  auto parsed = parse_agent_runner_args(args);
  if (!parsed) {
    err << "agent-runner: " << parsed.error().message << "\n";
    return exit_code::config_error;
  }
  // The daemon: --connect, else AGENT_RUNNER_CONNECT, else AGENTRY_CONNECT (agents have
  // it), else embedded; agent-runner's token variable when agentry's is not set.
  std::vector<std::pair<std::string, std::string>> flags;
  GlobalOptions global;
  std::string connect = parsed->value("--connect").value_or(env.get("AGENT_RUNNER_CONNECT"));
  if (!connect.empty()) {
    global.connect = connect;
    flags.emplace_back("AGENTRY_CONNECT", connect);
  }
  if (!env.has("AGENTRY_DAEMON_TOKEN") && env.has("AGENT_RUNNER_DAEMON_TOKEN"))
    env.vars["AGENTRY_DAEMON_TOKEN"] = env.get("AGENT_RUNNER_DAEMON_TOKEN");
  auto settings = core::parse_settings(
      [&env](std::string_view name) -> std::optional<std::string> {
        auto it = env.vars.find(std::string(name));
        return it == env.vars.end() ? std::nullopt : std::optional<std::string>(it->second);
      },
      flags);
  if (!settings) {
    err << "agent-runner: " << settings.error().message << "\n";
    return exit_code::config_error;
  }
  global.settings = std::move(*settings);
  if (!env.has("AGENTRY_LOG_LEVEL")) core::set_log_level(core::LogLevel::warn);
  else core::set_log_level(global.settings.log_level);
  // A daemon that cannot be reached is a refusal for agent-runner (3), not a failure.
  ClientFactory reaching = [factory = std::move(factory)](const GlobalOptions& g, const Environment& e) {
    auto client = factory(g, e);
    if (!client && client.error().code == core::ErrorCode::internal) {
      core::Error error = client.error();
      error.code = core::ErrorCode::unavailable;
      return core::Result<std::unique_ptr<Client>>(core::fail(std::move(error)));
    }
    return client;
  };
  CommandContext context(std::move(global), std::move(env), out, err, std::move(reaching));
  return Invocation(std::move(*parsed), context).dispatch();
}

int agent_runner_main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return run_agent_runner(args, Environment::current(), std::cout, std::cerr, open_client);
}

}  // namespace agentry::cli::compat
