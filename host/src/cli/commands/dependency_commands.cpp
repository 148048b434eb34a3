// `deps list|add|remove|clear`, and the `--after` of `run`/`init`: what a run waits on
// before it may start. A dependency is named `<runId>` (or `run:<runId>`) or
// `group:<groupId>`.

#include "cli/commands/commands.hpp"
#include "cli/render.hpp"
#include "cli/table.hpp"

namespace agentry::cli {
namespace json = boost::json;

core::Result<json::object> dependency_param(const std::string& text) {
  if (text.rfind("group:", 0) == 0) {
    std::string group = text.substr(6);
    if (group.empty()) return core::fail(core::ErrorCode::invalid_request, "'group:' needs a group id: group:<id>");
    return json::object{{"type", "group"}, {"groupId", group}};
  }
  std::string run = text.rfind("run:", 0) == 0 ? text.substr(4) : text;
  if (run.empty())
    return core::fail(core::ErrorCode::invalid_request, "a dependency is <runId>, run:<runId> or group:<groupId>");
  return json::object{{"type", "run"}, {"runId", run}};
}

std::string dependency_name(const json::value& d) {
  return text_at(d, "type") == "group" ? "group:" + text_at(d, "groupId") : "run:" + text_at(d, "runId");
}

std::string describe_waiting(const json::value& run) {
  std::string out;
  if (auto* deps = run.as_object().if_contains("dependencies"); deps && deps->is_array()) {
    for (const auto& d : deps->as_array()) {
      if (text_at(d, "satisfied") == "true") continue;
      std::string what = dependency_name(d);
      if (text_at(d, "missing") == "true") what += text_at(d, "type") == "group" ? " (no runs in it)" : " (no such run)";
      else if (text_at(d, "type") == "group")
        what += " (" + text_at(d, "succeeded") + " of " + text_at(d, "members") + " succeeded)";
      else what += " (" + text_at(d, "status") + ")";
      out += (out.empty() ? "" : ", ") + what;
    }
  }
  return out;
}

namespace {

std::string render_dependencies(const json::value& run) {
  std::string out;
  const auto& o = run.as_object();
  const auto* deps = o.if_contains("dependencies");
  const auto* dependents = o.if_contains("dependents");
  const std::string id = text_at(run, "runId");
  const std::string state = text_at(run.at("dependencyState"), "state");
  if (!deps || !deps->is_array() || deps->as_array().empty()) {
    out += "run " + id + " waits on nothing\n";
  } else {
    Table table({"DEPENDENCY", "MET", "NOW"});
    for (const auto& d : deps->as_array()) {
      std::string now = text_at(d, "missing") == "true" ? "missing"
                        : text_at(d, "type") == "group"
                            ? text_at(d, "succeeded") + " of " + text_at(d, "members") + " succeeded"
                            : text_at(d, "status");
      table.add_row({dependency_name(d), text_at(d, "satisfied") == "true" ? "yes" : "no", now});
    }
    out += "run " + id + " (" + text_at(run, "status") + "): dependencies " + state + "\n" + table.render();
  }
  if (dependents && dependents->is_array() && !dependents->as_array().empty()) {
    Table table({"WAITING RUN", "STATUS", "THROUGH"});
    for (const auto& d : dependents->as_array())
      table.add_row({text_at(d, "runId"), text_at(d, "status"),
                     text_at(d, "type") == "group" ? "group:" + text_at(d, "groupId") : "run:" + id});
    out += "\n" + table.render();
  }
  return out;
}

int dependency_operation(CommandContext& ctx, const std::string& method, json::object params,
                         const std::string& done) {
  auto result = ctx.call(method, std::move(params));
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [&](const json::value& v) {
    const auto& run = v.as_object().at("run");
    std::string waiting = describe_waiting(run);
    return done + "; run " + text_at(run, "runId") + " " +
           (waiting.empty() ? std::string("waits on nothing unmet") : "waits on " + waiting) + "\n";
  });
}

}  // namespace

int deps_list_command(CommandContext& ctx, const DependencyOptions& o) {
  auto result = ctx.call("runs.get", json::object{{"runId", o.run_id}});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) { return render_dependencies(v.as_object().at("run")); });
}

int deps_add_command(CommandContext& ctx, const DependencyOptions& o) {
  // One call per dependency; each is checked (self, duplicate, cycle) on its own.
  for (std::size_t i = 0; i < o.targets.size(); ++i) {
    auto dependency = dependency_param(o.targets[i]);
    if (!dependency) return ctx.report(dependency.error());
    const std::string name = dependency_name(*dependency);
    json::object params{{"runId", o.run_id}, {"dependency", std::move(*dependency)}};
    if (i + 1 < o.targets.size()) {
      auto added = ctx.call("runs.addDependency", std::move(params));
      if (!added) return ctx.report(added.error());
      if (!ctx.json()) ctx.out() << "added " << name << "\n";
      continue;
    }
    return dependency_operation(ctx, "runs.addDependency", std::move(params), "added " + name);
  }
  return ctx.usage_error("give at least one dependency: <runId>, run:<runId> or group:<groupId>");
}

int deps_remove_command(CommandContext& ctx, const DependencyOptions& o) {
  if (o.targets.size() != 1) return ctx.usage_error("give one dependency to remove: <runId>, run:<runId> or group:<groupId>");
  auto dependency = dependency_param(o.targets.front());
  if (!dependency) return ctx.report(dependency.error());
  const std::string name = dependency_name(*dependency);
  return dependency_operation(ctx, "runs.removeDependency",
                              json::object{{"runId", o.run_id}, {"dependency", std::move(*dependency)}},
                              "removed " + name);
}

int deps_clear_command(CommandContext& ctx, const DependencyOptions& o) {
  return dependency_operation(ctx, "runs.clearDependencies", json::object{{"runId", o.run_id}},
                              "cleared the dependencies");
}

}  // namespace agentry::cli
