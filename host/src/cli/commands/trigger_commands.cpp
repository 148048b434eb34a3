#include "cli/commands/trigger_commands.hpp"

#include "cli/render.hpp"
#include "cli/table.hpp"

namespace agentry::cli {
namespace json = boost::json;

int triggers_list_command(CommandContext& ctx) {
  auto result = ctx.call("triggers.list", {});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) {
    Table table({"NAME", "ASSIGNMENT", "AGENT", "SCHEME", "SECRET", "ROUTE"});
    for (const auto& t : v.at("triggers").as_array()) {
      const bool set = t.at("secretSet").as_bool();
      table.add_row({text_at(t, "name"), text_at(t, "assignment"), text_at(t, "agent"), text_at(t, "scheme"),
                     text_at(t, "secretEnv") + (set ? "" : " (not set)"), "POST /api/triggers/" + text_at(t, "name")});
    }
    std::string out = table.rows() ? table.render() : std::string("no triggers in the config directory's triggers/\n");
    // A broken trigger file is listed here, not in the answer a sender gets.
    for (const auto& w : v.at("warnings").as_array())
      out += "warning: " + text_at(w, "path") + ": " + text_at(w, "field") + ": " + text_at(w, "message") + "\n";
    return out;
  });
}

}  // namespace agentry::cli
