// `config`: the effective settings, parsed once at start (core/settings.hpp), and where
// each came from, so a user can see what a daemon or command started with. Needs no
// daemon and opens no database.

#include "cli/commands/commands.hpp"
#include "cli/table.hpp"

#include <boost/json/serialize.hpp>

#include <ostream>

namespace agentry::cli {
namespace json = boost::json;

int config_command(CommandContext& ctx) {
  const auto& entries = ctx.global().settings.entries;
  if (ctx.json()) {
    json::array out;
    for (const auto& e : entries)
      out.push_back(json::object{{"name", e.name},
                                 {"value", e.value},
                                 {"from", core::to_string(e.origin)},
                                 {"meaning", e.meaning}});
    ctx.out() << json::serialize(json::object{{"settings", std::move(out)}}) << "\n";
    return 0;
  }
  Table table({"SETTING", "VALUE", "FROM", "MEANING"});
  for (const auto& e : entries)
    table.add_row({e.name, e.value.empty() ? "-" : e.value, std::string(core::to_string(e.origin)), e.meaning});
  ctx.out() << table.render();
  return 0;
}

}  // namespace agentry::cli
