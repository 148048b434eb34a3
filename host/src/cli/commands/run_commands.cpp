// `run`, `init`, `ready`, `resume`, `reconfigure`, `abort`: creating runs and moving
// them through their lifecycle. `run` and `resume` follow the run to its end (unless
// --detach) and exit with its code.

#include "cli/commands/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/follow.hpp"
#include "cli/interrupt.hpp"
#include "cli/render.hpp"

#include <cerrno>
#include <chrono>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <thread>

namespace agentry::cli {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

/// --var name=value options as a vars object (values as text; the daemon checks types).
core::Result<json::object> parse_vars(const std::vector<std::string>& pairs) {
  json::object vars;
  for (const auto& kv : pairs) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      return core::fail(core::ErrorCode::invalid_request, "--var takes name=value (got '" + kv + "')");
    vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return vars;
}

/// runs.start / runs.init params from the options, the message they name and the
/// environment.
core::Result<json::object> start_params(const StartOptions& o, const std::optional<std::string>& message,
                                        const Environment& env, bool start) {
  const bool reinit = !o.run_id.empty();
  if (!reinit && o.agent.empty() && o.backend.empty())
    return core::fail(core::ErrorCode::invalid_request,
                      "give the agent, or --backend <name> to run an ad-hoc agent (or, for init, --run-id <run>)");
  json::object params;
  if (!o.agent.empty()) params["agent"] = o.agent;
  // A re-initialized run keeps its working directory unless --cwd names another, and
  // keeps its parent and group: the ones of the environment are not asked for.
  if (reinit) params["runId"] = o.run_id;
  if (!reinit || !o.cwd.empty()) params["callerCwd"] = env.cwd.string();
  fs::path definition_cwd = env.cwd;
  if (!o.cwd.empty()) definition_cwd = (env.cwd / o.cwd).lexically_normal();
  params["definitionCwd"] = definition_cwd.string();
  if (!o.assignment.empty()) params["assignment"] = o.assignment;
  if (!o.name.empty()) params["name"] = o.name;
  // Lineage: inside a run, what you start is that run's child and joins its group.
  std::string parent = o.parent_given         ? o.parent
                       : reinit              ? std::string()
                       : env.has(env_run_id) ? env.get(env_run_id)
                                             : env.get(env_parent_run_id);
  if (!parent.empty()) {
    params["parentRunId"] = parent;
    // A detached child (or one created to be started later) tells its parent how it
    // ended; `run` in the foreground hands its output to the caller itself.
    params["notifyParentOnComplete"] = !o.no_notify_parent && (o.detach || !start);
    if (o.no_inherit_group) params["inheritRunGroup"] = false;
  }
  // Inside a run, $AGENTRY_RUN_GROUP_ID is the parent's group: opting out ignores it.
  std::string group = o.group_given                   ? o.group
                      : o.no_inherit_group || reinit ? std::string()
                                                     : env.get(env_run_group_id);
  if (!group.empty()) params["runGroupId"] = group;
  auto vars = parse_vars(o.vars);
  if (!vars) return vars.failure();
  if (!vars->empty()) params["cliVars"] = std::move(*vars);
  if (!reinit && o.assignment.empty() && !message)
    return core::fail(core::ErrorCode::invalid_request,
                      "nothing to do: give --assignment <name>, --message <text> or --message-file <path>");
  for (const auto& title : o.add_tasks)
    if (title.empty()) return core::fail(core::ErrorCode::invalid_request, "--add-task takes a title; got an empty one");
  json::object overrides;
  if (message) overrides["message"] = *message;
  if (!o.cwd.empty()) overrides["cwd"] = o.cwd;
  if (!o.model.empty()) overrides["model"] = o.model;
  if (!o.effort.empty()) overrides["effort"] = o.effort;
  if (!o.launcher.empty()) overrides["launcher"] = o.launcher;
  if (!o.environment.empty()) overrides["environment"] = o.environment;
  if (!o.backend.empty()) overrides["backend"] = o.backend;
  if (o.unrestricted) overrides["unrestricted"] = *o.unrestricted;
  if (o.timeout_sec >= 0) overrides["timeoutSec"] = o.timeout_sec;
  if (o.max_retries >= 0) overrides["maxRetries"] = o.max_retries;
  if (!overrides.empty()) params["overrides"] = std::move(overrides);
  if (!o.after.empty()) {
    json::array dependencies;
    for (const auto& text : o.after) {
      auto dependency = dependency_param(text);
      if (!dependency) return dependency.failure();
      dependencies.emplace_back(std::move(*dependency));
    }
    params["dependencies"] = std::move(dependencies);
  }
  if (!o.notify_secret_env.empty() && o.notify_webhooks.empty())
    return core::fail(core::ErrorCode::invalid_request, "--notify-secret-env signs --notify-webhook targets; give one");
  if (!o.notify_webhooks.empty()) {
    json::array notify;
    for (const auto& url : o.notify_webhooks) {
      json::object target{{"webhook", url}};
      if (!o.notify_secret_env.empty()) target["secretEnv"] = o.notify_secret_env;
      notify.push_back(std::move(target));
    }
    params["notify"] = std::move(notify);
  }
  if (!o.labels.empty()) {
    json::array labels;
    for (const auto& label : o.labels) labels.emplace_back(label);
    params["placement"] = json::object{{"labels", std::move(labels)}};
  }
  return params;
}

/// The error of a start refused because the run waits on dependencies.
bool waits_on_dependencies(const core::Error& error) {
  auto* reason = error.details.if_contains("reason");
  return reason && *reason == "unmet_dependencies";
}

/// Refuses to nest deeper than AGENTRY_MAX_CALL_DEPTH (`limit`): an agent starting agents in a loop.
core::Result<void> check_call_depth(const Environment& env, int limit) {
  std::string text = env.get(env_call_depth);
  if (text.empty()) return core::ok();
  int depth = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), depth);
  if (ec != std::errc{} || end != text.data() + text.size() || depth < 0)
    return core::fail(core::ErrorCode::invalid_request,
                      std::string(env_call_depth) + " must be a non-negative integer (got '" + text + "')");
  if (depth >= limit)
    return core::fail(core::ErrorCode::conflict,
                      "refusing to start a run nested " + std::to_string(depth + 1) + " deep (" + env_call_depth + "=" +
                          text + ", the limit is " + std::to_string(limit) +
                          "); is an agent starting agents in a loop?");
  return core::ok();
}

std::string run_id_of(const json::value& result) {
  if (auto* run = result.as_object().if_contains("run"); run && run->is_object()) return text_at(*run, "runId");
  return {};
}

int refuse_detach(CommandContext& ctx) {
  return ctx.usage_error(
      "--detach needs a daemon: an embedded run is driven by this process and ends with it; "
      "start `agentry serve` and pass --connect ws://127.0.0.1:4773/ (or set AGENTRY_CONNECT)");
}

/// Follows a run this command started or resumed; the exit code of how it ended.
int follow_owned_run(CommandContext& ctx, Client& client, const std::string& run_id, std::int64_t after) {
  FollowOptions options;
  options.after = after;
  options.quiet = ctx.json();
  options.abort_on_interrupt = true;
  auto outcome = follow_run(client, run_id, options, ctx.out(), ctx.err());
  if (outcome.error && !outcome.interrupted) return ctx.report(*outcome.error);
  if (ctx.json()) {
    if (auto final_run = client.call("runs.get", json::object{{"runId", run_id}}); final_run)
      ctx.print(*final_run, [](const json::value&) { return std::string(); });
  }
  if (outcome.interrupted) return exit_code::cancelled;
  return exit_code::for_run_status(outcome.status);
}

}  // namespace

namespace {

/// Removes a run this command created but could not finish setting up (archive, then
/// delete), so a refused `run`/`init` leaves nothing behind. Says so when it cannot.
void discard_run(CommandContext& ctx, Client& client, const std::string& run_id) {
  auto archived = client.call("runs.archive", json::object{{"runId", run_id}});
  auto deleted = archived ? client.call("runs.delete", json::object{{"runId", run_id}}) : archived;
  if (deleted) {
    ctx.err() << "agentry: run " << run_id << " was not kept\n";
  } else {
    ctx.err() << "agentry: run " << run_id << " was left initialized (" << deleted.error().message
              << "); remove it with: agentry archive " << run_id << " && agentry delete " << run_id << "\n";
  }
}

/// Adds the --add-task tasks to a freshly initialized run, in order. On a refusal the
/// run is discarded and the error reported: its exit code.
std::optional<int> add_tasks(CommandContext& ctx, Client& client, const std::string& run_id,
                             const std::vector<std::string>& titles) {
  for (const auto& title : titles) {
    auto added = client.call("tasks.add", json::object{{"runId", run_id}, {"title", title}});
    if (!added) {
      int code = ctx.report(added.error());
      discard_run(ctx, client, run_id);
      return code;
    }
  }
  return std::nullopt;
}

}  // namespace

core::Result<std::optional<std::string>> read_message(const MessageInput& input, const Environment& env) {
  if (input.text_given) return std::optional<std::string>(input.text);
  if (input.file.empty()) return std::optional<std::string>();
  std::string text;
  if (input.file == "-") {
    std::ostringstream all;
    all << std::cin.rdbuf();
    if (std::cin.bad())
      return core::fail(core::ErrorCode::invalid_request, "cannot read the message from standard input");
    text = std::move(all).str();
  } else {
    const fs::path path = (env.cwd / input.file).lexically_normal();
    std::error_code ec;
    if (fs::is_directory(path, ec))
      return core::fail(core::ErrorCode::invalid_request, "cannot read --message-file " + input.file + ": a directory");
    errno = 0;
    std::ifstream file(path, std::ios::binary);
    if (!file) {
      const int error = errno;
      return core::fail(core::ErrorCode::invalid_request,
                        "cannot read --message-file " + input.file + ": " +
                            (error ? std::strerror(error) : "cannot open it"));
    }
    text.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    if (file.bad())
      return core::fail(core::ErrorCode::invalid_request, "cannot read --message-file " + input.file);
  }
  return std::optional<std::string>(std::move(text));
}

namespace {

/// The assignment's guidance for whoever starts its runs (rendered with the run's vars),
/// on stderr so that stdout stays the run id or JSON. Fresh runs only, as agent-runner.
void print_caller_instructions(CommandContext& ctx, const json::value& run) {
  std::string text = text_at(run, "callerInstructions");
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return;
  text = text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
  ctx.err() << "\n-- caller instructions --\n" << text << "\n-- end of caller instructions --\n";
}

}  // namespace

int start_command(CommandContext& ctx, const StartOptions& o, bool start) {
  if (start) {
    if (o.detach && !ctx.connected()) return refuse_detach(ctx);
    if (auto ok = check_call_depth(ctx.env(), ctx.global().settings.max_call_depth); !ok) return ctx.report(ok.error());
  }
  auto message = read_message(o.message, ctx.env());
  if (!message) return ctx.report(message.error());
  auto params = start_params(o, *message, ctx.env(), start);
  if (!params) return ctx.report(params.error());
  auto client = ctx.client();
  if (!client) return ctx.report(client.error());
  std::optional<InterruptGuard> guard;
  if (start && !o.detach) guard.emplace();  // from before the start: a Ctrl-C during it still aborts
  // With tasks to add, the run is created initialized, given its tasks, then started:
  // its first session (and, for a passive run, its status) sees them all.
  const bool staged = !o.add_tasks.empty();
  auto result = (*client)->call(start && !staged ? "runs.start" : "runs.init", std::move(*params));
  if (!result) return ctx.report(result.error());
  const std::string run_id = run_id_of(*result);
  if (staged) {
    if (auto failed = add_tasks(ctx, **client, run_id, o.add_tasks)) return *failed;
    if (start && InterruptGuard::interrupted()) {  // Ctrl-C before it started: nothing to abort
      discard_run(ctx, **client, run_id);
      return exit_code::cancelled;
    }
    result = start ? (*client)->call("runs.resume", json::object{{"runId", run_id}})
                   : (*client)->call("runs.get", json::object{{"runId", run_id}});
    // As runs.start does with --after: a run whose dependencies are not met waits, ready.
    if (!result && start && waits_on_dependencies(result.error()))
      result = (*client)->call("runs.ready", json::object{{"runId", run_id}});
    if (!result) return ctx.report(result.error());
  }
  const auto& run = result->as_object().at("run");
  print_caller_instructions(ctx, run);
  if (start && text_at(run, "status") == "ready") {
    // Not started: it waits on its dependencies, and a daemon starts it when they are met.
    // Or it waits for a daemon with its labels, workspace or room (engine/placement/).
    const std::string reason = text_at(run, "statusReason");
    const std::string waiting =
        reason.rfind("waiting for a member: ", 0) == 0
            ? "run " + run_id + " is ready, " + reason + "; a daemon that can take it starts it"
            : "run " + run_id + " is ready and waits on " + describe_waiting(run) + "; the daemon starts it once they succeed";
    if (!ctx.connected() || o.detach) {
      return ctx.print(*result, [&](const json::value&) {
        ctx.err() << "agentry: " << waiting << "\n";
        if (!ctx.connected())
          ctx.err() << "  no daemon is driving it here: start `agentry serve` (it starts waiting runs), or "
                       "follow it: agentry --connect <url> logs -f "
                    << run_id << "\n";
        return run_id + "\n";
      });
    }
    if (!ctx.json()) ctx.out() << waiting << "\n";
    return follow_owned_run(ctx, **client, run_id, 0);
  }
  if (!start || o.detach) {
    return ctx.print(*result, [&](const json::value&) {
      std::string what = start ? "started" : "initialized";
      std::string out = run_id + "\n";
      ctx.err() << "agentry: " << what << " run " << run_id << " (agent " << text_at(run, "agent") << " on "
                << text_at(run, "backend") << ")\n";
      ctx.err() << (start ? "  follow it: agentry logs -f " + run_id : "  start it: agentry resume " + run_id) << "\n";
      return out;
    });
  }
  if (!ctx.json())
    ctx.out() << "run " << run_id << " · agent " << text_at(run, "agent") << " on " << text_at(run, "backend")
              << (text_at(run, "assignment").empty() ? "" : " · " + text_at(run, "assignment")) << "\n";
  return follow_owned_run(ctx, **client, run_id, 0);
}

int resume_command(CommandContext& ctx, const ResumeOptions& o) {
  if (o.detach && !ctx.connected()) return refuse_detach(ctx);
  auto message = read_message(o.message, ctx.env());
  if (!message) return ctx.report(message.error());
  auto client = ctx.client();
  if (!client) return ctx.report(client.error());
  std::int64_t after = 0;
  if (!o.detach) {
    auto last = last_timeline_cursor(**client, o.run_id);
    if (!last) return ctx.report(last.error());
    after = *last;
  }
  json::object params{{"runId", o.run_id}};
  if (*message) params["message"] = **message;
  std::optional<InterruptGuard> guard;
  if (!o.detach) guard.emplace();
  auto result = (*client)->call("runs.resume", std::move(params));
  if (!result) return ctx.report(result.error());
  if (o.detach)
    return ctx.print(*result, [&](const json::value&) {
      return "resumed run " + o.run_id + "; follow it: agentry logs -f " + o.run_id + "\n";
    });
  if (!ctx.json()) ctx.out() << "resumed run " << o.run_id << "\n";
  return follow_owned_run(ctx, **client, o.run_id, after);
}

namespace {

/// A one-run lifecycle operation answering {run}: prints "<verb> run <id>: <status>".
int simple_run_operation(CommandContext& ctx, const std::string& method, json::object params, const std::string& verb) {
  auto result = ctx.call(method, std::move(params));
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [&](const json::value& v) {
    const auto& run = v.as_object().at("run");
    std::string reason = text_at(run, "statusReason");
    return (verb.empty() ? "" : verb + " ") + "run " + text_at(run, "runId") + ": " + text_at(run, "status") +
           (reason.empty() ? "" : " (" + reason + ")") + "\n";
  });
}

}  // namespace

int ready_command(CommandContext& ctx, const ScheduleOptions& o) {
  json::object params = schedule_params(o);
  if (params.empty()) return simple_run_operation(ctx, "runs.ready", json::object{{"runId", o.run_id}}, "");
  params["runId"] = o.run_id;
  auto result = ctx.call("runs.ready", std::move(params));
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) {
    const auto& run = v.as_object().at("run");
    return "run " + text_at(run, "runId") + ": " + text_at(run, "status") + "\n" + describe_schedule(run);
  });
}

int reconfigure_command(CommandContext& ctx, const ReconfigureOptions& o) {
  auto vars = parse_vars(o.vars);
  if (!vars) return ctx.report(vars.error());
  for (const auto& name : o.unset_vars) {
    if (name.empty() || name.find('=') != std::string::npos)
      return ctx.usage_error("--unset-var takes a variable's name (got '" + name + "')");
    if (vars->contains(name)) return ctx.usage_error("--var and --unset-var both name '" + name + "'");
    (*vars)[name] = nullptr;  // back to what env, parent or default give
  }
  auto message = read_message(o.message, ctx.env());
  if (!message) return ctx.report(message.error());
  if (vars->empty() && !*message)
    return ctx.usage_error("nothing to reconfigure: give --var, --unset-var, --message or --message-file");
  json::object params{{"runId", o.run_id}};
  if (!vars->empty()) params["vars"] = std::move(*vars);
  if (*message) params["message"] = **message;
  return simple_run_operation(ctx, "runs.reconfigure", std::move(params), "reconfigured");
}

// The daemon accepts an abort at once and the backend then stops; the command waits
// here, on its own side, so that what it prints is how the run ended.
int abort_command(CommandContext& ctx, const std::string& run_id, const std::string& reason) {
  json::object params{{"runId", run_id}};
  if (!reason.empty()) params["reason"] = reason;
  auto accepted = ctx.call("runs.abort", std::move(params));
  if (!accepted) return ctx.report(accepted.error());
  json::value result = *accepted;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (text_at(result.as_object().at("run"), "status") == "running" && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto now = ctx.call("runs.get", json::object{{"runId", run_id}});
    if (!now) return ctx.report(now.error());
    json::object merged = now->as_object();
    merged["runId"] = run_id;
    merged["accepted"] = true;
    result = std::move(merged);
  }
  return ctx.print(result, [&](const json::value& v) {
    const auto& run = v.as_object().at("run");
    const std::string status = text_at(run, "status");
    if (status == "running") return "abort of run " + run_id + " requested; it is still stopping\n";
    std::string why = text_at(run, "statusReason");
    return "aborted run " + run_id + ": " + status + (why.empty() ? "" : " (" + why + ")") + "\n";
  });
}

}  // namespace agentry::cli
