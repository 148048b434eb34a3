// `trust`: whether a project's `.agentry/` definitions are trusted, trusting them as
// they are now (after reviewing them), revoking that, and listing trusted projects
// (engine/project_trust.hpp; docs/security.md#project-trust).

#include "cli/commands/commands.hpp"
#include "cli/render.hpp"

namespace agentry::cli {
namespace json = boost::json;

namespace {

std::string describe_project(const json::value& project) {
  const auto& p = project.as_object();
  const std::string dir = text_at(project, "projectDir");
  if (p.at("trusted").as_bool()) return dir + ": trusted since " + text_at(project, "trustedAt") + "\n";
  if (p.at("changed").as_bool())
    return dir + ": NOT trusted: its .agentry/ changed since it was trusted at " + text_at(project, "trustedAt") +
           "; review it and run `agentry trust " + dir + "` again\n";
  return dir + ": not trusted; review its .agentry/ and run `agentry trust " + dir + "`\n";
}

}  // namespace

int trust_command(CommandContext& ctx, const TrustOptions& o) {
  if (o.list) {
    auto result = ctx.call("projects.listTrusted", json::object{});
    if (!result) return ctx.report(result.error());
    return ctx.print(*result, [](const json::value& v) {
      std::string out;
      for (const auto& p : v.as_object().at("projects").as_array()) out += describe_project(p);
      return out.empty() ? std::string("no trusted projects\n") : out;
    });
  }
  const std::string dir = o.dir.empty() ? ctx.env().cwd.string() : (ctx.env().cwd / o.dir).lexically_normal().string();
  const char* method = o.revoke ? "projects.revokeTrust" : o.status ? "projects.trustStatus" : "projects.trust";
  auto result = ctx.call(method, json::object{{"dir", dir}});
  if (!result) return ctx.report(result.error());
  return ctx.print(*result, [&](const json::value& v) {
    const auto& project = v.as_object().at("project");
    if (o.revoke) return "revoked trust in " + text_at(project, "projectDir") + "\n";
    return describe_project(project);
  });
}

}  // namespace agentry::cli
