// `doctor`: runs the checks of cli/doctor_checks.hpp on this machine's settings (the
// same ones serve would start with) and prints each with what to do about it. Needs no
// daemon, and changes nothing: it looks at what a daemon started here would use.

#include "cli/commands/commands.hpp"
#include "cli/doctor_checks.hpp"
#include "cli/exit_codes.hpp"
#include "cli/paths.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace agentry::cli {
namespace json = boost::json;

namespace {

json::object to_json(const DoctorChecks& checks, int failed, int warned) {
  json::array items;
  for (const auto& c : checks) {
    json::object item{{"name", c.name}, {"status", to_string(c.status)}, {"detail", c.detail}};
    item["fix"] = c.fix.empty() ? json::value(nullptr) : json::value(c.fix);
    items.push_back(std::move(item));
  }
  return json::object{{"ok", failed == 0},
                      {"summary", json::object{{"ok", static_cast<std::int64_t>(checks.size()) - failed - warned},
                                               {"warn", warned},
                                               {"fail", failed}}},
                      {"checks", std::move(items)}};
}

std::string render(const DoctorChecks& checks, int failed, int warned) {
  std::string out;
  std::size_t width = 0;
  for (const auto& c : checks) width = std::max(width, c.name.size());
  for (const auto& c : checks) {
    out += std::string(to_string(c.status)) + std::string(6 - to_string(c.status).size(), ' ') + c.name +
           std::string(width + 2 - c.name.size(), ' ') + c.detail + "\n";
    if (!c.fix.empty()) out += std::string(6, ' ') + "fix: " + c.fix + "\n";
  }
  out += "\n" + std::to_string(checks.size()) + " checks: " + std::to_string(failed) + " failed, " +
         std::to_string(warned) + " warnings\n";
  return out;
}

}  // namespace

int doctor_command(CommandContext& ctx) {
  const auto& settings = ctx.global().settings;
  auto paths = resolve_paths(settings);
  if (!paths) return ctx.report(paths.error());
  const DoctorInput in{settings, *paths, ctx.env()};
  DoctorChecks checks;
  check_store(in, checks);
  check_definitions_and_backends(in, checks);
  check_git(in, checks);
  check_dashboard(in, checks);
  check_auth(in, checks);
  check_disk(in, checks);
  const int failed = static_cast<int>(
      std::count_if(checks.begin(), checks.end(), [](const DoctorCheck& c) { return c.status == CheckStatus::fail; }));
  const int warned = static_cast<int>(
      std::count_if(checks.begin(), checks.end(), [](const DoctorCheck& c) { return c.status == CheckStatus::warn; }));
  ctx.print(to_json(checks, failed, warned), [&](const json::value&) { return render(checks, failed, warned); });
  return failed == 0 ? exit_code::success : exit_code::checks_failed;
}

}  // namespace agentry::cli
