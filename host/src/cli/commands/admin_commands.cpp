// `archive`, `unarchive`, `reset`, `delete`: housekeeping on one run.

#include "cli/commands/commands.hpp"
#include "cli/render.hpp"

namespace agentry::cli {
namespace json = boost::json;

int admin_command(CommandContext& ctx, const std::string& name, const std::string& run_id) {
  const std::string method = "runs." + name;
  auto result = ctx.call(method, json::object{{"runId", run_id}});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [&](const json::value& v) -> std::string {
    if (name == "delete") return "deleted run " + text_at(v.as_object().at("result"), "runId") + "\n";
    const auto& run = v.as_object().at("run");
    std::string verb = name == "reset" ? "reset" : name + "d";
    return verb + " run " + text_at(run, "runId") + " (status " + text_at(run, "status") + ")\n";
  });
}

}  // namespace agentry::cli
