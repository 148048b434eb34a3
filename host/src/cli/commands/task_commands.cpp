// `task list|show|set|append-notes|add|delete`: a run's tasks. The run defaults to
// $AGENTRY_RUN_ID, so an agent inside a run reports progress with
// `agentry task set plan --status completed --notes "..."`.

#include "cli/commands/commands.hpp"
#include "cli/render.hpp"

namespace agentry::cli {
namespace json = boost::json;

namespace {

core::Result<std::string> run_of(const TaskOptions& o, const Environment& env) {
  if (!o.run_id.empty()) return o.run_id;
  if (env.has(env_run_id)) return env.get(env_run_id);
  return core::fail(core::ErrorCode::invalid_request,
                    "which run? pass --run <id> (inside a run, AGENTRY_RUN_ID names it)");
}

std::function<std::string(const json::value&)> task_line(const std::string& verb) {
  return [verb](const json::value& result) {
    const auto& task = result.as_object().at("task");
    return verb + " task " + text_at(task, "id") + " of run " + text_at(task, "runId") + ": " +
           text_at(task, "status") + "\n";
  };
}

/// Runs `method` for the run (and task) of `o` with `extra` params; prints via `human`.
int task_operation(CommandContext& ctx, const TaskOptions& o, const std::string& method, bool with_task,
                   json::object extra, const std::function<std::string(const json::value&)>& human) {
  auto run = run_of(o, ctx.env());
  if (!run) return ctx.report(run.error());
  json::object params{{"runId", *run}};
  if (with_task) params["taskId"] = o.task_id;
  for (auto& [key, value] : extra) params[key] = value;
  auto result = ctx.call(method, std::move(params));
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, human);
}

}  // namespace

int task_list_command(CommandContext& ctx, const TaskOptions& o) {
  return task_operation(ctx, o, "tasks.list", false, {},
                        [](const json::value& v) { return render_tasks(v.as_object().at("tasks").as_array()); });
}

int task_show_command(CommandContext& ctx, const TaskOptions& o) {
  return task_operation(ctx, o, "tasks.get", true, {},
                        [](const json::value& v) { return render_task(v.as_object().at("task").as_object()); });
}

int task_set_command(CommandContext& ctx, const TaskOptions& o) {
  json::object patch;
  if (!o.status.empty()) patch["status"] = o.status;
  if (o.notes_given) patch["notes"] = o.notes;
  if (o.title_given) patch["title"] = o.title;
  if (o.body_given) patch["body"] = o.body;
  if (patch.empty()) return ctx.usage_error("nothing to change: give --status, --notes, --title and/or --body");
  return task_operation(ctx, o, "tasks.set", true, std::move(patch), task_line("updated"));
}

int task_append_notes_command(CommandContext& ctx, const TaskOptions& o) {
  return task_operation(ctx, o, "tasks.appendNotes", true, json::object{{"text", o.text}}, task_line("noted"));
}

int task_add_command(CommandContext& ctx, const TaskOptions& o) {
  json::object fields{{"title", o.title}};
  if (!o.task_id.empty()) fields["id"] = o.task_id;
  if (!o.body.empty()) fields["body"] = o.body;
  return task_operation(ctx, o, "tasks.add", false, std::move(fields), task_line("added"));
}

int task_delete_command(CommandContext& ctx, const TaskOptions& o) {
  return task_operation(ctx, o, "tasks.delete", true, {}, [](const json::value& v) {
    const auto& r = v.as_object().at("result");
    return "deleted task " + text_at(r, "taskId") + " of run " + text_at(r, "runId") + "\n";
  });
}

}  // namespace agentry::cli
