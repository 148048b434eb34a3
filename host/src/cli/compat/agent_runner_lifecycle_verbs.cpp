// agent-runner's `run ready|reset|reconfigure|schedule|delete|audit` and its queued resume
// messages (`run queue-message|queued-messages|remove-queued-message`): one operation
// each (the schedule's: one of four), printed as its CLI prints them: its JSON
// (RunDetail, its CLI's own result objects, RunAuditHistory) or one `agent-runner: ...`
// line.

#include "api/compat/compat_dto.hpp"
#include "cli/commands/commands.hpp"
#include "cli/compat/agent_runner_invocation.hpp"

#include <boost/json.hpp>

#include <cstdlib>

namespace agentry::cli::compat {
namespace json = boost::json;

namespace {

/// Their formatSchedule: "One-time at <runAt>", or the cron line and its zone (theirs
/// words the expression; ours prints it, as theirs does when it cannot).
std::string schedule_text(const json::value& schedule) {
  if (!schedule.is_object()) return "none";
  const auto& s = schedule.as_object();
  const auto* recurrence = s.if_contains("recurrence");
  if (recurrence && recurrence->is_object()) {
    const auto& cron = recurrence->as_object().at("schedule").as_object();
    return "Cron: " + std::string(cron.at("expression").as_string()) + " - " +
           std::string(cron.at("timezone").as_string());
  }
  const auto* at = s.if_contains("runAt");
  return "One-time at " + (at && at->is_string() ? std::string(at->as_string()) : std::string("-"));
}

/// Our flat schedule fields from options named `prefix`at, `prefix`delay, ... (their
/// `run ready --schedule-*` and `run schedule --at ...`); empty when none is given.
json::object schedule_fields(const AgentRunnerArgs& args, const std::string& prefix) {
  json::object out;
  for (const char* key : {"at", "delay", "cron", "timezone", "mode"})
    if (auto v = args.value(prefix + key)) out[key] = *v;
  if (args.has(prefix + "continue-on-failure")) out["continueOnFailure"] = true;
  return out;
}

}  // namespace

int Invocation::run_ready() {
  const std::vector<std::string> schedule_options{"--schedule-at", "--schedule-delay", "--schedule-cron",
                                                  "--schedule-timezone", "--schedule-mode",
                                                  "--schedule-continue-on-failure"};
  std::vector<std::string> allowed{"--output-format"};
  allowed.insert(allowed.end(), schedule_options.begin(), schedule_options.end());
  if (auto refused = refuse_others("run ready", allowed)) return *refused;
  if (auto refused = want_words("run ready", 2, {"run"})) return *refused;
  json::object params = schedule_fields(args_, "--schedule-");
  params["runId"] = word(2);
  auto ready = ctx_.call("runs.ready", std::move(params));
  if (!ready) return failed(ready.error());
  const auto detail = api::compat::ref_detail(ready->at("run").as_object(), facts());
  if (json_output()) return print_json(detail);
  ctx_.out() << "agent-runner: promoted run " << word(2) << " to ready\n";
  if (!detail.at("schedule").is_null()) ctx_.out() << "schedule: " << schedule_text(detail.at("schedule")) << "\n";
  return exit_code::success;
}

int Invocation::run_reset() {
  if (auto refused = refuse_others("run reset", {"--output-format"})) return *refused;
  if (auto refused = want_words("run reset", 2, {"run"})) return *refused;
  auto reset = ctx_.call("runs.reset", json::object{{"runId", word(2)}});
  if (!reset) return failed(reset.error());
  const auto& run = reset->at("run").as_object();
  if (json_output())
    return print_json(json::object{{"runId", run.at("runId")}, {"status", api::compat::ref_status(run.at("status").as_string())}});
  return print_line("agent-runner: reset run " + word(2) + " to initialized state");
}

int Invocation::run_reconfigure() {
  if (auto refused = refuse_others("run reconfigure", {"--output-format", "--var", "--message-file"})) return *refused;
  if (args_.words.size() < 3) return usage("run reconfigure needs <run>");
  json::object params{{"runId", word(2)}};
  json::object vars;
  for (const auto& pair : args_.values("--var")) {
    const auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) return usage("--var expected key=value, got \"" + pair + "\"");
    vars[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  if (!vars.empty()) params["vars"] = std::move(vars);
  if (auto file = args_.value("--message-file")) {
    if (args_.words.size() > 3) return usage("--message-file and a message in words: give one");
    MessageInput input;
    input.file = *file;
    auto text = read_message(input, ctx_.env());
    if (!text) return failed(text.error());
    if (*text) params["message"] = **text;
  } else if (args_.words.size() > 3) {
    params["message"] = words_from(3);
  }
  auto done = ctx_.call("runs.reconfigure", std::move(params));
  if (!done) return failed(done.error());
  if (json_output()) return print_json(api::compat::ref_detail(done->at("run").as_object(), facts()));
  return print_line("agent-runner: reconfigured run " + word(2));
}

int Invocation::run_schedule() {
  if (auto refused = refuse_others("run schedule", {"--output-format", "--at", "--delay", "--cron", "--timezone",
                                                    "--mode", "--continue-on-failure"}))
    return *refused;
  // `run schedule <run> --at ...` sets; `run schedule enable|disable|clear <run>`.
  const std::string first = args_.words.size() > 2 ? word(2) : "";
  const bool action = first == "enable" || first == "disable" || first == "clear";
  const std::string verb = action ? first : "set";
  if (auto refused = want_words("run schedule" + (action ? " " + verb : std::string()), action ? 3 : 2, {"run"}))
    return *refused;
  const std::string run_id = word(action ? 3 : 2);
  json::object params = schedule_fields(args_, "--");
  if (action && !params.empty()) return usage("run schedule " + verb + " does not accept schedule flags");
  if (!action) {
    const int sources = static_cast<int>(params.contains("at")) + static_cast<int>(params.contains("delay")) +
                        static_cast<int>(params.contains("cron"));
    if (sources != 1) return usage("run schedule requires exactly one of --at, --delay, or --cron");
    if (!params.contains("cron"))
      for (const char* key : {"timezone", "mode", "continueOnFailure"})
        if (params.contains(key))
          return usage(std::string("--") + (std::string(key) == "continueOnFailure" ? "continue-on-failure" : key) +
                       " is valid only with --cron");
  }
  params["runId"] = run_id;
  const char* method = verb == "set"     ? "runs.setSchedule"
                       : verb == "clear" ? "runs.clearSchedule"
                       : verb == "enable" ? "runs.enableSchedule"
                                          : "runs.disableSchedule";
  auto done = ctx_.call(method, std::move(params));
  if (!done) return failed(done.error());
  const auto detail = api::compat::ref_detail(done->at("run").as_object(), facts());
  if (json_output()) return print_json(detail);
  const std::string done_word = verb == "set" ? "set" : verb == "clear" ? "cleared" : verb + "d";
  if (detail.at("schedule").is_null())
    return print_line("agent-runner: " + done_word + " schedule for run " + run_id);
  return print_line("agent-runner: " + done_word + " schedule for run " + run_id + ": " +
                    schedule_text(detail.at("schedule")) + " (next " +
                    std::string(detail.at("schedule").at("runAt").as_string()) + ", " +
                    std::string(detail.at("scheduleState").as_string()) + ")");
}

int Invocation::run_delete() {
  if (auto refused = refuse_others("run delete", {"--output-format"})) return *refused;
  if (auto refused = want_words("run delete", 2, {"run"})) return *refused;
  auto done = ctx_.call("runs.delete", json::object{{"runId", word(2)}});
  if (!done) return failed(done.error());
  if (json_output()) return print_json(json::object{{"runId", word(2)}});
  return print_line("agent-runner: deleted archived run " + word(2));
}

int Invocation::run_audit() {
  // Theirs answers a usage mistake here with 1 and an unknown run with 2.
  constexpr int misuse = 1;
  if (auto refused = refuse_others("run audit", {"--output-format", "--limit"}, misuse)) return *refused;
  if (auto refused = want_words("run audit", 2, {"run"}, misuse)) return *refused;
  std::optional<std::size_t> keep;
  if (auto limit = args_.value("--limit")) {
    char* end = nullptr;
    const long long n = std::strtoll(limit->c_str(), &end, 10);
    if (limit->empty() || *end != '\0' || n < 1) return usage("--limit must be a positive integer", misuse);
    keep = static_cast<std::size_t>(n);
  }
  // Theirs is the whole history (the newest --limit); ours comes in pages.
  json::array events;
  std::int64_t after = 0;
  for (;;) {
    auto page = ctx_.call("runs.auditHistory",
                          json::object{{"runId", word(2)}, {"after", std::to_string(after)}, {"limit", "5000"}});
    if (!page) {
      const int code = failed(page.error());
      return page.error().code == core::ErrorCode::not_found ? 2 : code;
    }
    auto& got = page->as_object().at("events").as_array();
    for (auto& e : got) events.push_back(std::move(e));
    if (got.size() < 5000) break;
    after = events.back().at("cursor").as_int64();
  }
  if (keep && events.size() > *keep) events.erase(events.begin(), events.end() - static_cast<std::ptrdiff_t>(*keep));
  const std::int64_t last = events.empty() ? 0 : events.back().at("cursor").as_int64();
  json::object page{{"runId", word(2)}, {"events", std::move(events)}, {"lastCursor", last}};
  const auto history = api::compat::ref_audit_history(page, word(2), facts());
  if (json_output()) return print_json(history);
  ctx_.out() << audit_lines(history);
  return exit_code::success;
}

int Invocation::queue_message() {
  if (auto refused = refuse_others("run queue-message", {"--output-format"})) return *refused;
  if (args_.words.size() < 3) return usage("run queue-message requires a run id or path");
  if (args_.words.size() < 4) return usage("run queue-message requires message text");
  auto done = ctx_.call("runs.queueResumeMessage", json::object{{"runId", word(2)}, {"message", words_from(3)}});
  if (!done) return failed(done.error());
  const auto message = api::compat::ref_queued_message(done->at("message").as_object());
  const auto& run = done->at("run").as_object();
  const auto* queued = run.if_contains("queuedResumeMessages");
  const std::size_t count = queued && queued->is_array() ? queued->as_array().size() : 0;
  if (json_output())
    return print_json(json::object{
        {"runId", word(2)}, {"queuedResumeMessage", message}, {"queuedResumeMessageCount", count}});
  return print_line("agent-runner: queued message " + std::string(message.at("id").as_string()) + " for run " +
                    word(2));
}

int Invocation::queued_messages() {
  if (auto refused = refuse_others("run queued-messages", {"--output-format"})) return *refused;
  if (auto refused = want_words("run queued-messages", 2, {"run"})) return *refused;
  auto run = native_run(word(2));
  if (!run) return failed(run.error());
  const auto detail = api::compat::ref_detail(*run, facts());
  const auto& messages = detail.at("queuedResumeMessages").as_array();
  if (json_output()) return print_json(json::object{{"runId", word(2)}, {"queuedResumeMessages", messages}});
  ctx_.out() << queued_message_lines(messages, word(2));
  return exit_code::success;
}

int Invocation::remove_queued_message() {
  if (auto refused = refuse_others("run remove-queued-message", {"--output-format"})) return *refused;
  if (auto refused = want_words("run remove-queued-message", 2, {"run", "message-id"})) return *refused;
  auto done = ctx_.call("runs.removeQueuedResumeMessage", json::object{{"runId", word(2)}, {"messageId", word(3)}});
  if (!done) return failed(done.error());
  auto run = native_run(word(2));
  if (!run) return failed(run.error());
  const auto* queued = run->if_contains("queuedResumeMessages");
  const std::size_t count = queued && queued->is_array() ? queued->as_array().size() : 0;
  if (json_output())
    return print_json(
        json::object{{"runId", word(2)}, {"removedMessageId", word(3)}, {"queuedResumeMessageCount", count}});
  return print_line("agent-runner: removed queued message " + word(3) + " from run " + word(2));
}

}  // namespace agentry::cli::compat
