// `agentry environments status|cleanup`: the containers agentry made for runs in
// container environments (docs/environments.md), and `agentry container-exec`, the
// relay a backend starts in place of an agent that runs in a container.

#include "cli/commands/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/table.hpp"
#include "environments/exec_relay.hpp"

#include <iostream>

namespace agentry::cli {
namespace json = boost::json;
namespace {

std::string text_of(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string("-");
}

std::string render_containers(const json::array& containers, const json::array& errors, const char* none) {
  std::string out;
  if (containers.empty()) {
    out = std::string(none) + "\n";
  } else {
    Table table({"CONTAINER", "ENGINE", "ENVIRONMENT", "STATUS", "RUN/GROUP", "CLEANUP", "USED BY"});
    for (const auto& item : containers) {
      const auto& c = item.as_object();
      std::string owner = text_of(c, "runId");
      if (owner == "-") owner = "group " + text_of(c, "groupId");
      std::string users;
      for (const auto& u : c.at("usedBy").as_array()) users += (users.empty() ? "" : ",") + std::string(u.as_string());
      table.add_row({text_of(c, "name"), text_of(c, "engine"), text_of(c, "environment"), text_of(c, "status"), owner,
                     text_of(c, "cleanup"), users.empty() ? "-" : users});
    }
    out = table.render();
  }
  for (const auto& e : errors) out += "error: " + std::string(e.as_string()) + "\n";
  return out;
}

}  // namespace

int environments_status_command(CommandContext& ctx) {
  auto result = ctx.call("environments.status", json::object{});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [](const json::value& v) {
    return render_containers(v.at("containers").as_array(), v.at("errors").as_array(),
                             "No containers: no run in a container environment has one now.");
  });
}

int environments_cleanup_command(CommandContext& ctx, bool all) {
  auto result = ctx.call("environments.cleanup", json::object{{"all", all}});
  if (!result) return ctx.report(result.error());
  const bool failed = !result->at("errors").as_array().empty();
  const int printed = ctx.print(*result, [](const json::value& v) {
    const auto& removed = v.at("removed").as_array();
    std::string out = removed.empty() ? "" : "Removed:\n";
    return out + render_containers(removed, v.at("errors").as_array(), "Nothing to remove.");
  });
  return printed != exit_code::success ? printed : failed ? exit_code::runtime_error : exit_code::success;
}

int container_exec_command(const std::vector<std::string>& args) {
  environments::ExecRelayArgs relay;
  if (auto error = environments::parse_exec_relay_args(args, relay); !error.empty()) {
    std::cerr << "agentry container-exec: " << error
              << " (this command is what agentry starts for an agent in a container; see docs/environments.md)\n";
    return exit_code::config_error;
  }
  return environments::run_exec_relay(relay);
}

}  // namespace agentry::cli
