// `queue add|list|remove`: follow-up messages waiting for a live run's session to end.
// When it ends, the daemon (or the embedded process driving the run) starts one resume
// carrying every queued text, in order.

#include "cli/commands/commands.hpp"
#include "cli/render.hpp"
#include "cli/table.hpp"

namespace agentry::cli {
namespace json = boost::json;

namespace {

std::string render_queue(const json::array& messages) {
  if (messages.empty()) return "no queued messages\n";
  Table table({"MESSAGE", "QUEUED", "SOURCE", "TEXT"});
  for (const auto& m : messages)
    table.add_row({text_at(m, "id"), short_time(text_at(m, "createdAt")), text_at(m, "source"),
                   truncate(text_at(m, "text"), 70)});
  return table.render();
}

}  // namespace

int queue_add_command(CommandContext& ctx, const QueueOptions& o) {
  auto result = ctx.call("runs.queueResumeMessage", json::object{{"runId", o.run_id}, {"text", o.text}});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) {
    const auto& message = v.as_object().at("message");
    return "queued message " + text_at(message, "id") + " for run " + text_at(message, "runId") +
           "; it is sent when the current session ends\n";
  });
}

int queue_list_command(CommandContext& ctx, const QueueOptions& o) {
  auto result = ctx.call("runs.listQueuedResumeMessages", json::object{{"runId", o.run_id}});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) { return render_queue(v.as_object().at("messages").as_array()); });
}

int queue_remove_command(CommandContext& ctx, const QueueOptions& o) {
  auto result =
      ctx.call("runs.removeQueuedResumeMessage", json::object{{"runId", o.run_id}, {"messageId", o.message_id}});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) {
    const auto& r = v.as_object().at("result");
    return "removed queued message " + text_at(r, "messageId") + " from run " + text_at(r, "runId") + "\n";
  });
}

}  // namespace agentry::cli
