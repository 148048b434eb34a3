// `approve <run> <approval> [--deny]`: answers a question the run's agent waits on.

#include "cli/commands/commands.hpp"
#include "cli/render.hpp"

namespace agentry::cli {
namespace json = boost::json;

int approve_command(CommandContext& ctx, const std::string& run_id, const std::string& approval_id, bool deny) {
  auto result = ctx.call("runs.answerApproval", json::object{{"runId", run_id},
                                                             {"approvalId", approval_id},
                                                             {"decision", deny ? "deny" : "approve"}});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) {
    const auto& r = v.as_object().at("result");
    return (text_at(r, "decision") == "deny" ? "denied " : "approved ") + text_at(r, "approvalId") + " of run " +
           text_at(r, "runId") + "\n";
  });
}

}  // namespace agentry::cli
