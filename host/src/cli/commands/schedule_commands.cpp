// `schedule set|clear|enable|disable`: when a run starts on its own. The daemon fires
// schedules; embedded mode sets them in the shared database, and the daemon arms them
// when it next starts.

#include "cli/commands/commands.hpp"
#include "cli/render.hpp"

namespace agentry::cli {
namespace json = boost::json;

std::string describe_schedule(const json::value& run) {
  const auto& r = run.as_object();
  const std::string id = text_at(run, "runId");
  auto* schedule = r.if_contains("schedule");
  if (!schedule || !schedule->is_object()) return "run " + id + " has no schedule\n";
  const auto& s = schedule->as_object();
  std::string what;
  if (text_at(*schedule, "kind") == "once") {
    what = "once at " + text_at(*schedule, "at");
    if (auto delay = text_at(*schedule, "delay"); !delay.empty()) what += " (delay " + delay + ")";
  } else {
    what = "cron \"" + text_at(*schedule, "cron") + "\" in " + text_at(*schedule, "timezone") + ", mode " +
           text_at(*schedule, "mode") + (s.at("continueOnFailure").as_bool() ? ", continues on failure" : "");
  }
  std::string line = "run " + id + " schedule: " + what;
  if (auto* state = r.if_contains("scheduleState"); state && state->is_object()) {
    line += "; " + text_at(*state, "state");
    if (auto next = text_at(*state, "nextAt"); !next.empty()) line += ", next " + next;
    if (auto reason = text_at(*state, "reason"); !reason.empty()) line += " (" + reason + ")";
  }
  return line + "\n";
}

json::object schedule_params(const ScheduleOptions& o) {
  json::object params;
  if (!o.at.empty()) params["at"] = o.at;
  if (!o.delay.empty()) params["delay"] = o.delay;
  if (!o.cron.empty()) {
    params["cron"] = o.cron;
    if (!o.timezone.empty()) params["timezone"] = o.timezone;
    if (!o.mode.empty()) params["mode"] = o.mode;
    if (o.continue_on_failure) params["continueOnFailure"] = true;
  }
  return params;
}

int schedule_set_command(CommandContext& ctx, const ScheduleOptions& o) {
  json::object params = schedule_params(o);
  params["runId"] = o.run_id;
  auto result = ctx.call("runs.setSchedule", std::move(params));
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) { return describe_schedule(v.as_object().at("run")); });
}

int schedule_change_command(CommandContext& ctx, const std::string& name, const std::string& run_id) {
  const std::string method = name == "clear"    ? "runs.clearSchedule"
                             : name == "enable" ? "runs.enableSchedule"
                                                : "runs.disableSchedule";
  auto result = ctx.call(method, json::object{{"runId", run_id}});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) { return describe_schedule(v.as_object().at("run")); });
}

}  // namespace agentry::cli
