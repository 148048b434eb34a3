// `name`, `note`, `pin`, `unpin`, `group`: how a run is shown and grouped. None of them
// changes what the run does, and each is allowed whatever the run's status.

#include "cli/commands/commands.hpp"
#include "cli/render.hpp"
#include "core/json_strings.hpp"

namespace agentry::cli {
namespace json = boost::json;

namespace {

/// Calls `method` on the run; prints `human` of the resulting run, or the JSON result.
int metadata_operation(CommandContext& ctx, const std::string& method, json::object params,
                       const std::function<std::string(const json::value& run)>& human) {
  auto result = ctx.call(method, std::move(params));
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [&](const json::value& v) { return human(v.as_object().at("run")); });
}

}  // namespace

int name_command(CommandContext& ctx, const std::string& run_id, const std::optional<std::string>& name) {
  return metadata_operation(ctx, "runs.setName", json::object{{"runId", run_id}, {"name", core::text_or_null(name)}},
                            [](const json::value& run) {
                              std::string now = text_at(run, "name");
                              if (now.empty()) return "cleared the name of run " + text_at(run, "runId") + "\n";
                              return "named run " + text_at(run, "runId") + ": " + now + "\n";
                            });
}

int note_command(CommandContext& ctx, const std::string& run_id, const std::optional<std::string>& note) {
  return metadata_operation(ctx, "runs.setNote", json::object{{"runId", run_id}, {"note", core::text_or_null(note)}},
                            [](const json::value& run) {
                              std::string now = text_at(run, "note");
                              if (now.empty()) return "cleared the note of run " + text_at(run, "runId") + "\n";
                              return "set the note of run " + text_at(run, "runId") + " (" +
                                     std::to_string(now.size()) + " bytes)\n";
                            });
}

int pin_command(CommandContext& ctx, const std::string& run_id, bool pinned) {
  return metadata_operation(ctx, "runs.setPinned", json::object{{"runId", run_id}, {"pinned", pinned}},
                            [](const json::value& run) {
                              return std::string(text_at(run, "pinned") == "true" ? "pinned" : "unpinned") +
                                     " run " + text_at(run, "runId") + "\n";
                            });
}

int group_command(CommandContext& ctx, const std::string& run_id, const std::optional<std::string>& group) {
  json::object params{{"runId", run_id}};
  if (group) params["runGroupId"] = *group;
  return metadata_operation(ctx, group ? "runs.setGroup" : "runs.clearGroup", std::move(params),
                            [](const json::value& run) {
                              std::string id = text_at(run, "runId");
                              std::string now = text_at(run, "runGroupId");
                              if (now == id) return "run " + id + " is in its own group\n";
                              return "run " + id + " is in group " + now + "\n";
                            });
}

}  // namespace agentry::cli
