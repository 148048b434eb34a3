// `backends`, `daemons`, `definitions`: what this agentry can run, who serves its store,
// and the definitions it sees.

#include "cli/commands/commands.hpp"
#include "cli/render.hpp"

#include <array>

namespace agentry::cli {
namespace json = boost::json;

namespace {

struct Kind {
  const char* word;    // on the command line
  const char* prefix;  // operation prefix, also the list result's key
  const char* detail;  // the get result's key
  const char* title;   // heading when listing every kind
};

constexpr std::array<Kind, 5> kinds{{{"agents", "agents", "agent", "Agents"},
                                     {"assignments", "assignments", "assignment", "Assignments"},
                                     {"launchers", "launchers", "launcher", "Launchers"},
                                     {"environments", "environments", "environment", "Environments"},
                                     {"tasks", "taskDefinitions", "taskDefinition", "Task definitions"}}};

const Kind* find_kind(const std::string& word) {
  for (const auto& k : kinds) {
    std::string singular(k.word);
    singular.pop_back();
    if (word == k.word || word == singular) return &k;
  }
  return nullptr;
}

}  // namespace

int backends_command(CommandContext& ctx) {
  auto result = ctx.call("backends.list", {});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) { return render_backends(v.as_object()); });
}

int daemons_command(CommandContext& ctx) {
  auto result = ctx.call("daemons.list", {});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) { return render_daemons(v.as_object()); });
}

int definitions_command(CommandContext& ctx, const DefinitionOptions& o) {
  const std::string cwd = o.cwd.empty() ? ctx.env().cwd.string() : (ctx.env().cwd / o.cwd).lexically_normal().string();
  if (o.kind.empty()) {
    json::object all;
    for (const auto& k : kinds) {
      auto result = ctx.call(std::string(k.prefix) + ".list", json::object{{"cwd", cwd}});
      if (!result) return ctx.report(result.error());
      all[k.prefix] = result->as_object().at(k.prefix);
    }
    return ctx.print(all, [](const json::value& v) {
      std::string out;
      for (const auto& k : kinds)
        out += std::string(out.empty() ? "" : "\n") + k.title + "\n" + render_definition_list(v.at(k.prefix).as_object());
      return out;
    });
  }
  const Kind* kind = find_kind(o.kind);
  if (!kind) return ctx.usage_error("unknown kind '" + o.kind + "': use agents, assignments, launchers, environments or tasks");
  if (o.name.empty()) {
    auto result = ctx.call(std::string(kind->prefix) + ".list", json::object{{"cwd", cwd}});
    if (!result) return ctx.report(result.error());
    return ctx.print(*result, [kind](const json::value& v) { return render_definition_list(v.at(kind->prefix).as_object()); });
  }
  auto result = ctx.call(std::string(kind->prefix) + ".get", json::object{{"cwd", cwd}, {"target", o.name}});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [kind](const json::value& v) { return render_definition_detail(v.at(kind->detail).as_object()); });
}

}  // namespace agentry::cli
