// agent-runner's command set for agents, on agentry's operations. The commands that
// start or resume runs hand translated options to agentry's own `run`/`init`/`resume`
// (commands/run_commands.cpp), which start, follow and exit by status; the others call
// one operation each and print its answer in agent-runner's shape.

#include "cli/compat/agent_runner_cli.hpp"

#include "api/compat/compat_dto.hpp"
#include "cli/commands/commands.hpp"
#include "cli/compat/agent_runner_args.hpp"
#include "cli/compat/agent_runner_output.hpp"
#include "cli/exit_codes.hpp"
#include "cli/paths.hpp"
#include "core/log.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <iostream>
#include <sstream>

namespace agentry::cli::compat {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* own_cli_pointer =
    "agentry's agent-runner command has the commands agents run (agent-runner --help); for the others, use "
    "agent-runner's own CLI against agentry's compat listener (docs/agent-runner.md)";


/// The commands and subcommands of agent-runner's that agentry leaves to its own CLI.
bool is_unsupported_run_verb(const std::string& word) {
  static const std::vector<std::string> verbs{
      "audit",          "queue-message",   "queued-messages", "remove-queued-message", "set-name",
      "set-note",       "pin",             "unpin",           "archive",               "unarchive",
      "add-dep",        "remove-dep",      "clear-deps",      "deps",                  "schedule",
      "reset",          "delete",          "environment",     "set-group",             "clear-group",
      "set-backend-session", "clear-backend-session", "reconfigure", "abort", "cancel", "workspace", "timeline"};
  return std::find(verbs.begin(), verbs.end(), word) != verbs.end();
}

/// Another context's client, lent to agentry's own command run inside this one: the same
/// connection (or embedded stack), which the borrower must not close.
class BorrowedClient : public Client {
 public:
  explicit BorrowedClient(Client* owner) : owner_(owner) {}
  core::Result<json::value> call(const std::string& method, json::object params) override {
    return owner_->call(method, std::move(params));
  }
  core::Result<std::string> subscribe(const SubscribeRequest& request, StreamHandlers handlers) override {
    return owner_->subscribe(request, std::move(handlers));
  }
  void unsubscribe(const std::string& id) override { owner_->unsubscribe(id); }
  core::Result<json::value> upload_attachment(const std::string& run, const fs::path& file, const std::string& name,
                                              const TransferProgress& progress) override {
    return owner_->upload_attachment(run, file, name, progress);
  }
  core::Result<json::value> download_attachment(const std::string& run, const std::string& id, const fs::path& to,
                                                const TransferProgress& progress) override {
    return owner_->download_attachment(run, id, to, progress);
  }
  bool drives_runs() const override { return owner_->drives_runs(); }
  std::string describe() const override { return owner_->describe(); }

 private:
  Client* owner_;
};

/// `text` as a non-negative int; nullopt when it is not one.
std::optional<int> whole_number(const std::string& text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

/// One invocation: its parsed words and options, the streams and the client.
class Invocation {
 public:
  Invocation(AgentRunnerArgs args, CommandContext& ctx) : args_(std::move(args)), ctx_(ctx) {}

  int dispatch();

 private:
  // --- checks and output ---
  int usage(const std::string& message) {
    ctx_.err() << "agent-runner: " << message << "\n";
    return exit_code::config_error;
  }
  int failed(const core::Error& error) {
    ctx_.err() << "agent-runner: " << error.message << "\n";
    // agent-runner counts an unreachable daemon as a refusal (3), as a bad request.
    return error.code == core::ErrorCode::internal ? exit_code::runtime_error : exit_code::config_error;
  }
  bool json_output() const { return args_.value("--output-format").value_or("text") == "json"; }
  /// Refuses options `command` does not take, and a bad --output-format.
  std::optional<int> refuse_others(const std::string& command, const std::vector<std::string>& allowed) {
    auto others = args_.others(allowed);
    if (!others.empty()) {
      std::string names;
      for (const auto& o : others) names += (names.empty() ? "" : ", ") + o;
      return usage(command + " does not take " + names);
    }
    if (auto format = args_.value("--output-format"); format && *format != "text" && *format != "json")
      return usage("--output-format is text or json (got '" + *format + "')");
    return std::nullopt;
  }
  /// Exactly `names.size()` words after the command's own `skip` words, else a usage error.
  std::optional<int> want_words(const std::string& command, std::size_t skip, const std::vector<std::string>& names) {
    const std::size_t given = args_.words.size() - std::min(skip, args_.words.size());
    if (given == names.size()) return std::nullopt;
    std::string wanted;
    for (const auto& n : names) wanted += " <" + n + ">";
    if (given < names.size()) return usage(command + " needs" + wanted);
    return usage(command + " takes" + wanted + " only (got extra '" + args_.words[skip + names.size()] + "')");
  }
  const std::string& word(std::size_t i) const { return args_.words[i]; }
  int print_json(const json::value& value) {
    ctx_.out() << pretty_json(value);
    return exit_code::success;
  }
  api::compat::CompatFacts facts();

  // --- the commands ---
  int run_status();
  int run_brief();
  int run_ready();
  int task_command();
  int attachment_command();
  int start(bool is_init);
  int resume();
  /// Runs `command` (agentry's own) on a context whose output is kept when agent-runner's
  /// JSON is wanted, then prints that: `shape` makes it from our last answer's run.
  int through_own_command(const std::function<int(CommandContext&)>& command,
                          const std::function<json::value(const json::object& native_run)>& shape);

  AgentRunnerArgs args_;
  CommandContext& ctx_;
};

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
      if (is_unsupported_run_verb(verb)) return usage("run " + verb + " is not supported here: " + own_cli_pointer);
    }
    return args_.has("--resume-run") ? resume() : start(false);
  }
  if (command == "init") return start(true);
  if (command == "task") return task_command();
  if (command == "attachment") return attachment_command();
  return usage("'" + command + "' is not supported here: " + own_cli_pointer);
}

int Invocation::run_status() {
  if (auto refused = refuse_others("run status", {"--output-format", "--field"})) return *refused;
  if (auto refused = want_words("run status", 2, {"run"})) return *refused;
  const auto& fields = args_.values("--field");
  if (!fields.empty() && !json_output()) return usage("--field needs --output-format json");
  auto native = ctx_.call("runs.get", json::object{{"runId", word(2)}});
  if (!native) return failed(native.error());
  const auto detail = api::compat::ref_detail(native->at("run").as_object(), facts());
  if (!json_output()) {
    ctx_.out() << status_lines(detail);
    return exit_code::success;
  }
  if (fields.empty()) return print_json(detail);
  auto projected = project_fields(detail, fields);
  if (!projected) return failed(projected.error());
  return print_json(*projected);
}

int Invocation::run_brief() {
  if (auto refused = refuse_others("run brief", {})) return *refused;
  if (auto refused = want_words("run brief", 2, {"run"})) return *refused;
  auto brief = ctx_.call("runs.brief", json::object{{"runId", word(2)}});
  if (!brief) return failed(brief.error());
  auto* text = brief->as_object().if_contains("brief");
  ctx_.out() << (text && text->is_string() ? std::string(text->as_string()) : std::string()) << "\n";
  return exit_code::success;
}

int Invocation::run_ready() {
  if (auto refused = refuse_others("run ready", {"--output-format"})) return *refused;
  if (auto refused = want_words("run ready", 2, {"run"})) return *refused;
  auto ready = ctx_.call("runs.ready", json::object{{"runId", word(2)}});
  if (!ready) return failed(ready.error());
  const auto detail = api::compat::ref_detail(ready->at("run").as_object(), facts());
  if (json_output()) return print_json(detail);
  ctx_.out() << "run " << word(2) << " is " << detail.at("status").as_string().c_str() << "\n";
  return exit_code::success;
}

int Invocation::task_command() {
  const std::string verb = args_.words.size() >= 2 ? word(1) : "";
  std::optional<int> refused;
  json::object params;
  std::string method;
  if (verb == "list") {
    if ((refused = refuse_others("task list", {"--output-format"})) || (refused = want_words("task list", 2, {"run"})))
      return *refused;
    auto listed = ctx_.call("tasks.list", json::object{{"runId", word(2)}});
    if (!listed) return failed(listed.error());
    json::array tasks;
    for (const auto& t : listed->at("tasks").as_array()) tasks.push_back(api::compat::ref_task(t.as_object()));
    if (json_output()) return print_json(tasks);
    ctx_.out() << task_lines(tasks);
    return exit_code::success;
  }
  if (verb == "show") {
    if ((refused = refuse_others("task show", {"--output-format"})) ||
        (refused = want_words("task show", 2, {"run", "task"})))
      return *refused;
    method = "tasks.get";
  } else if (verb == "set") {
    if ((refused = refuse_others("task set", {"--output-format", "--status", "--notes"})) ||
        (refused = want_words("task set", 2, {"run", "task"})))
      return *refused;
    if (!args_.has("--status") && !args_.has("--notes")) return usage("task set needs --status or --notes");
    method = "tasks.set";
    if (auto status = args_.value("--status")) params["status"] = *status;
    if (auto notes = args_.value("--notes")) params["notes"] = *notes;
  } else if (verb == "append-notes") {
    if ((refused = refuse_others("task append-notes", {"--output-format", "--text"})) ||
        (refused = want_words("task append-notes", 2, {"run", "task"})))
      return *refused;
    auto text = args_.value("--text");
    if (!text) return usage("task append-notes needs --text <text>");
    method = "tasks.appendNotes";
    params["text"] = *text;
  } else if (verb == "add") {
    if ((refused = refuse_others("task add", {"--output-format", "--title", "--body"})) ||
        (refused = want_words("task add", 2, {"run"})))
      return *refused;
    auto title = args_.value("--title");
    if (!title) return usage("task add needs --title <title>");
    method = "tasks.add";
    params["title"] = *title;
    if (auto body = args_.value("--body")) params["body"] = *body;
  } else {
    return usage("task needs a subcommand: list, show, set, append-notes or add (got '" + verb + "')");
  }
  params["runId"] = word(2);
  if (method != "tasks.add") params["taskId"] = word(3);
  auto answer = ctx_.call(method, std::move(params));
  if (!answer) return failed(answer.error());
  const auto task = api::compat::ref_task(answer->at("task").as_object());
  if (json_output()) return print_json(task);
  if (verb == "show") ctx_.out() << task_text(task);
  else
    ctx_.out() << (verb == "add" ? "added" : "updated") << " task " << task.at("id").as_string().c_str() << " of run "
               << word(2) << ": " << task.at("status").as_string().c_str() << "\n";
  return exit_code::success;
}

int Invocation::attachment_command() {
  const std::string verb = args_.words.size() >= 2 ? word(1) : "";
  std::optional<int> refused;
  if (verb == "list") {
    if ((refused = refuse_others("attachment list", {"--output-format", "--scope"})) ||
        (refused = want_words("attachment list", 2, {"run"})))
      return *refused;
    const std::string scope = args_.value("--scope").value_or("group");
    if (scope != "run" && scope != "group") return usage("--scope is run or group (got '" + scope + "')");
    auto listed = ctx_.call("attachments.list", json::object{{"runId", word(2)}, {"scope", scope}});
    if (!listed) return failed(listed.error());
    json::array entries;
    for (const auto& a : listed->at("attachments").as_array())
      entries.push_back(api::compat::ref_attachment_entry(a.as_object()));
    if (json_output()) return print_json(entries);
    ctx_.out() << attachment_lines(entries, word(2));
    return exit_code::success;
  }
  if (verb == "add") {
    if ((refused = refuse_others("attachment add", {"--output-format", "--name"})) ||
        (refused = want_words("attachment add", 2, {"run", "source-file"})))
      return *refused;
    const fs::path file = (ctx_.env().cwd / word(3)).lexically_normal();
    const std::string name = args_.value("--name").value_or(file.filename().string());
    auto client = ctx_.client();
    if (!client) return failed(client.error());
    auto added = (*client)->upload_attachment(word(2), file, name, {});
    if (!added) return failed(added.error());
    const auto attachment = api::compat::ref_attachment(added->at("attachment").as_object());
    if (json_output()) return print_json(attachment);
    ctx_.out() << "added attachment " << attachment.at("id").as_string().c_str() << " (" << name << ") to run "
               << word(2) << "\n";
    return exit_code::success;
  }
  if (verb == "download") {
    if ((refused = refuse_others("attachment download", {"--output-format"})) ||
        (refused = want_words("attachment download", 2, {"run", "attachment", "output-path"})))
      return *refused;
    auto client = ctx_.client();
    if (!client) return failed(client.error());
    fs::path output = (ctx_.env().cwd / word(4)).lexically_normal();
    std::error_code ec;
    if (fs::is_directory(output, ec)) {
      // Into a directory: under the attachment's own name, as agent-runner does.
      auto listed = ctx_.call("attachments.list", json::object{{"runId", word(2)}, {"scope", "group"}});
      if (!listed) return failed(listed.error());
      std::string name;
      for (const auto& a : listed->at("attachments").as_array())
        if (a.as_object().at("attachmentId") == json::value(word(3))) name = std::string(a.at("name").as_string());
      if (name.empty()) return usage("run " + word(2) + " has no attachment " + word(3));
      output /= name;
    }
    if (fs::exists(output, ec)) return usage("attachment download: " + output.string() + " exists; not replaced");
    auto got = (*client)->download_attachment(word(2), word(3), output, {});
    if (!got) return failed(got.error());
    auto attachment = api::compat::ref_attachment(got->at("attachment").as_object());
    if (json_output()) {
      attachment["outputPath"] = output.string();
      return print_json(attachment);
    }
    ctx_.out() << "downloaded attachment " << word(3) << " to " << output.string() << "\n";
    return exit_code::success;
  }
  if (verb == "remove") {
    if ((refused = refuse_others("attachment remove", {"--output-format"})) ||
        (refused = want_words("attachment remove", 2, {"run", "attachment"})))
      return *refused;
    auto removed = ctx_.call("attachments.remove", json::object{{"runId", word(2)}, {"attachmentId", word(3)}});
    if (!removed) return failed(removed.error());
    const auto result = api::compat::ref_attachment_remove_result(removed->as_object());
    if (json_output()) return print_json(result);
    ctx_.out() << "removed attachment " << word(3) << " from run " << word(2) << "\n";
    return exit_code::success;
  }
  return usage("attachment needs a subcommand: list, add, download or remove (got '" + verb + "')");
}

int Invocation::through_own_command(const std::function<int(CommandContext&)>& command,
                                    const std::function<json::value(const json::object& native_run)>& shape) {
  // Reached first, so that an unreachable daemon is agent-runner's 3 here too.
  auto client = ctx_.client();
  if (!client) return failed(client.error());
  if (!json_output()) return command(ctx_);
  // Our command prints its answers as one line of JSON each; the last one holds the run.
  std::ostringstream kept;
  GlobalOptions global = ctx_.global();
  global.json = true;
  int code = 0;
  {
    Client* shared = *client;
    CommandContext own(global, ctx_.env(), kept, ctx_.err(), [shared](const GlobalOptions&, const Environment&) {
      return core::Result<std::unique_ptr<Client>>(std::make_unique<BorrowedClient>(shared));
    });
    code = command(own);
  }
  std::istringstream lines(kept.str());
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty()) last = line;
  if (last.empty()) return code;
  boost::system::error_code ec;
  auto answer = json::parse(last, ec);
  if (ec || !answer.is_object()) return code;
  auto* run = answer.as_object().if_contains("run");
  if (run && run->is_object()) print_json(shape(run->as_object()));
  return code;
}

int Invocation::start(bool is_init) {
  const std::string command = is_init ? "init" : "run";
  std::vector<std::string> allowed{"--output-format", "--agent",      "--assignment", "--var",
                                   "--name",          "--cwd",        "--message-file", "--parent-run",
                                   "--no-inherit-run-group", "--group-id", "--add-task", "--launcher",
                                   "--environment", "--model", "--effort", "--timeout-sec", "--max-retries"};
  if (!is_init) {
    allowed.push_back("--detach");
    allowed.push_back("--no-notify-parent-on-complete");
  } else {
    allowed.push_back("--run-id");  // re-initialize that run from its definitions as they are now
  }
  if (auto refused = refuse_others(command, allowed)) return *refused;
  const auto run_id = args_.value("--run-id");
  auto agent = args_.value("--agent");
  if (!run_id && (!agent || agent->empty()))
    return usage(command + " needs --agent <name> (or --resume-run <run> to resume" +
                 (is_init ? ", --run-id <run> to re-initialize)" : ")"));
  if (args_.has("--no-notify-parent-on-complete") && !args_.has("--detach"))
    return usage("--no-notify-parent-on-complete goes with --detach");
  StartOptions o;
  o.run_id = run_id.value_or("");
  o.agent = agent.value_or("");
  o.assignment = args_.value("--assignment").value_or("");
  o.vars = args_.values("--var");
  o.name = args_.value("--name").value_or("");
  o.cwd = args_.value("--cwd").value_or("");
  if (auto parent = args_.value("--parent-run")) {
    o.parent = *parent;
    o.parent_given = true;
  }
  if (auto group = args_.value("--group-id")) {
    o.group = *group;
    o.group_given = true;
  }
  o.no_inherit_group = args_.has("--no-inherit-run-group");
  o.add_tasks = args_.values("--add-task");
  o.launcher = args_.value("--launcher").value_or("");
  o.environment = args_.value("--environment").value_or("");
  o.model = args_.value("--model").value_or("");
  o.effort = args_.value("--effort").value_or("");
  for (auto [option, field] : {std::pair{"--timeout-sec", &o.timeout_sec}, std::pair{"--max-retries", &o.max_retries}}) {
    auto text = args_.value(option);
    if (!text) continue;
    auto number = whole_number(*text);
    if (!number) return usage(std::string(option) + " takes a whole number (got '" + *text + "')");
    *field = *number;
  }
  o.detach = args_.has("--detach");
  o.no_notify_parent = args_.has("--no-notify-parent-on-complete");
  // The message: the words after the command, or a file (not both, as agent-runner).
  std::string message;
  for (std::size_t i = 1; i < args_.words.size(); ++i) message += (i > 1 ? " " : "") + word(i);
  if (auto file = args_.value("--message-file")) {
    if (args_.words.size() > 1) return usage("--message-file and a message in words: give one");
    o.message.file = *file;
  } else if (args_.words.size() > 1) {
    o.message.text = message;
    o.message.text_given = true;
  }
  const bool detached = o.detach;
  auto facts_now = [this] { return facts(); };
  return through_own_command([&](CommandContext& c) { return start_command(c, o, !is_init); },
                             [&](const json::object& run) -> json::value {
                               if (detached) return json::object{{"runId", run.at("runId")}, {"detached", true}};
                               return api::compat::ref_detail(run, facts_now());
                             });
}

int Invocation::resume() {
  if (auto refused = refuse_others("run --resume-run", {"--output-format", "--resume-run", "--detach", "--message-file"}))
    return *refused;
  ResumeOptions o;
  o.run_id = *args_.value("--resume-run");
  o.detach = args_.has("--detach");
  std::string message;
  for (std::size_t i = 1; i < args_.words.size(); ++i) message += (i > 1 ? " " : "") + word(i);
  if (auto file = args_.value("--message-file")) {
    if (args_.words.size() > 1) return usage("--message-file and a message in words: give one");
    o.message.file = *file;
  } else if (args_.words.size() > 1) {
    o.message.text = message;
    o.message.text_given = true;
  }
  const bool detached = o.detach;
  return through_own_command([&](CommandContext& c) { return resume_command(c, o); },
                             [&](const json::object& run) -> json::value {
                               if (detached) return json::object{{"runId", run.at("runId")}, {"detached", true}};
                               return api::compat::ref_detail(run, facts());
                             });
}

}  // namespace

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
