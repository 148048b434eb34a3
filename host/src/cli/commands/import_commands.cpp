// `import agent-runner <state dir>`: another daemon's persisted runs brought into this
// store (store_import/agent_runner/). Embedded only: it writes the store directly, so no
// daemon may serve it meanwhile (one would reconcile, schedule or start a run half
// imported), the way `store copy` keeps its home to itself.

#include "cli/commands/commands.hpp"
#include "cli/daemon_lock.hpp"
#include "cli/exit_codes.hpp"
#include "cli/open_store.hpp"
#include "cli/paths.hpp"
#include "core/clock.hpp"
#include "store_import/agent_runner/state_dir_import.hpp"
#include "store_import/unserved_store.hpp"

#include <optional>
#include <sstream>

namespace agentry::cli {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
namespace ar = store_import::agent_runner;

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string human_report(const ar::ImportReport& r, const fs::path& from) {
  std::ostringstream out;
  out << (r.dry_run ? "would import " : "imported ") << r.imported.size() << " run" << (r.imported.size() == 1 ? "" : "s")
      << " from " << from.string() << "; skipped " << r.skipped.size() << "; refused " << r.problems.size()
      << (r.dry_run ? " (dry run: nothing written)" : "") << "\n";
  for (const auto& run : r.imported) {
    out << "  " << run.run_id << "  " << run.repo << "  " << run.status;
    if (!run.status_there.empty()) out << " (was " << run.status_there << ")";
    out << "  " << run.tasks << " tasks, " << run.sessions << " sessions, " << run.attempts << " attempts, "
        << run.attachments << " attachments\n";
    if (!run.not_carried.empty()) out << "      not carried: " << join(run.not_carried) << "\n";
    if (!run.hooks_left_out.empty())
      out << "      hooks not imported (agentry does not run module hooks): " << join(run.hooks_left_out) << "\n";
  }
  for (const auto& s : r.skipped) out << "skipped " << s.run_id << ": " << s.reason << "\n";
  for (const auto& p : r.problems) out << "refused " << p.run_id << ": " << p.reason << "\n";
  return out.str();
}

}  // namespace

int import_agent_runner_command(CommandContext& ctx, const ImportAgentRunnerOptions& o) {
  if (ctx.connected())
    return ctx.usage_error("import writes the store directly: run it without --connect (and AGENTRY_CONNECT), where "
                           "the store is, with no daemon serving it");
  auto paths = resolve_paths(ctx.global().settings);
  if (!paths) return ctx.report(paths.error());
  const fs::path state_dir = fs::absolute(ctx.env().cwd / o.state_dir).lexically_normal();
  std::optional<DaemonLock> held;
  if (ctx.global().settings.store.empty()) {  // SQLite: one home, one daemon
    auto lock = hold_home_without_daemon(paths->home, "stop it before importing, so that it does not act on runs half imported");
    if (!lock) return ctx.report(lock.error());
    held.emplace(std::move(*lock));
  }
  auto store = open_store(*paths, ctx.global().settings);
  if (!store) return ctx.report(store.error());
  if ((*store)->shared())
    if (auto alone = store_import::check_no_member_serves(**store, ctx.global().settings.lease_ttl); !alone)
      return ctx.report(alone.error());

  auto report = ar::import_state_dir(**store, {state_dir, paths->blob_dir, o.dry_run, core::now_ms()});
  if (!report) return ctx.report(report.error());
  ctx.print(report->to_json(), [&](const json::value&) { return human_report(*report, state_dir); });
  if (report->store_failed()) return exit_code::runtime_error;
  if (!report->problems.empty()) return exit_code::config_error;
  return exit_code::success;
}

}  // namespace agentry::cli
