// `store migrate` and `store copy`: the store itself rather than runs. They need no
// daemon and start no engine: `migrate` applies the schema migrations a daemon's start
// would, explicitly and reported; `copy` moves a SQLite home's state into an empty
// PostgreSQL database (store_copy/store_copy.hpp) while no daemon serves that home.

#include "cli/commands/commands.hpp"
#include "cli/daemon_lock.hpp"
#include "cli/exit_codes.hpp"
#include "cli/open_store.hpp"
#include "cli/paths.hpp"
#include "cli/table.hpp"
#include "core/uri_secrets.hpp"
#include "store_copy/store_copy.hpp"


#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include <unistd.h>

namespace agentry::cli {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

std::string describe(const SchemaMigration& m) {
  if (m.from == m.to) return m.store + ": schema version " + std::to_string(m.to) + " (up to date)\n";
  return m.store + ": migrated from " + std::to_string(m.from) + " to " + std::to_string(m.to) + "\n";
}

bool is_postgresql_uri(const std::string& uri) {
  return uri.starts_with("postgresql://") || uri.starts_with("postgres://");
}

// No daemon may serve the home while it is copied: what it wrote after the copy's
// snapshot would be left behind. Holding its lock also keeps one from starting meanwhile.
core::Result<std::optional<DaemonLock>> lock_home(const Paths& paths) {
  std::error_code ec;
  if (!fs::exists(paths.database(), ec)) return std::optional<DaemonLock>();  // the copy says it is missing
  auto lock = hold_home_without_daemon(
      paths.home, "stop it before copying, or what it writes after the copy would be left behind");
  if (!lock) return lock.failure();
  return std::optional<DaemonLock>(std::move(*lock));
}

// Progress on stderr. On a terminal, one line rewritten in place and cleared when its
// table is done (the counts follow on stdout); otherwise (--progress, for logs) a line a
// second while a table copies and one when it is done.
store_copy::Progress progress_for(CommandContext& ctx, bool forced) {
  const bool terminal = &ctx.err() == &std::cerr && ::isatty(STDERR_FILENO) == 1;
  if (!terminal && !forced) return {};
  auto last = std::make_shared<Clock::time_point>();
  return [&ctx, terminal, last](const std::string& table, std::int64_t rows, bool done) {
    const auto now = Clock::now();
    if (!done && now - *last < (terminal ? std::chrono::milliseconds(100) : std::chrono::milliseconds(1000))) return;
    *last = now;
    if (terminal) {
      ctx.err() << "\r\033[K";
      if (!done) ctx.err() << "copying " << table << ": " << rows << " rows";
    } else {
      ctx.err() << (done ? "copied " : "copying ") << table << ": " << rows << " rows\n";
    }
    ctx.err().flush();
  };
}

std::string rate(const store_copy::CopyReport& r) {
  std::ostringstream out;
  const double seconds = static_cast<double>(r.elapsed.count()) / 1000.0;
  out.precision(2);
  out << std::fixed << seconds << " s";
  if (seconds > 0 && r.rows() > 0) out << ", " << static_cast<std::int64_t>(static_cast<double>(r.rows()) / seconds) << " rows/s";
  return out.str();
}

std::string blobs_note(const fs::path& blobs) {
  return "attachment blobs are not copied: they stay in " + blobs.string() +
         "; start the daemons that serve these runs from PostgreSQL with AGENTRY_BLOB_DIR naming that directory "
         "(shared by every member) or a copy of it\n";
}

std::string human_report(const store_copy::CopyReport& r, const fs::path& blobs) {
  std::string out = (r.committed ? "copied " : "rolled back the copy of ") + r.source + " into " + r.target +
                    " (schema version " + std::to_string(r.schema_version) + "): " + std::to_string(r.rows()) +
                    " rows in " + rate(r) + "\n";
  Table table({"TABLE", "SQLITE", "POSTGRESQL"});
  for (const auto& t : r.tables)
    table.add_row({t.table, std::to_string(t.source_rows), std::to_string(t.target_rows)});
  return out + table.render() + blobs_note(blobs);
}

json::object json_report(const store_copy::CopyReport& r, const fs::path& blobs) {
  json::array tables;
  for (const auto& t : r.tables)
    tables.push_back(json::object{{"table", t.table}, {"sqliteRows", t.source_rows}, {"postgresqlRows", t.target_rows}});
  return json::object{{"source", r.source},
                      {"target", r.target},
                      {"schemaVersion", r.schema_version},
                      {"committed", r.committed},
                      {"rows", r.rows()},
                      {"elapsedMs", r.elapsed.count()},
                      {"tables", std::move(tables)},
                      {"blobs", json::object{{"copied", false}, {"directory", blobs.string()}}}};
}

}  // namespace

int store_migrate_command(CommandContext& ctx) {
  auto paths = resolve_paths(ctx.global().settings);
  if (!paths) return ctx.report(paths.error());
  auto done = migrate_store(*paths, ctx.global().settings);
  if (!done) return ctx.report(done.error());
  const json::object result{{"engine", done->engine},     {"store", done->store},
                            {"fromVersion", done->from},  {"toVersion", done->to},
                            {"latestVersion", done->latest}, {"migrated", done->from != done->to}};
  return ctx.print(result, [&](const json::value&) { return describe(*done); });
}

int store_copy_command(CommandContext& ctx, const StoreCopyOptions& o) {
  if (!is_postgresql_uri(o.to)) {
    return ctx.usage_error("--to must be a PostgreSQL URI such as postgresql://agentry@db.internal:5432/agentry, not '" +
                           core::redact_uri(o.to) + "'");
  }
  auto paths = resolve_paths(ctx.global().settings);
  if (!paths) return ctx.report(paths.error());
  auto lock = lock_home(*paths);
  if (!lock) return ctx.report(lock.error());
  auto report = store_copy::copy_into_postgresql({paths->database(), o.to, progress_for(ctx, o.progress)});
  if (!report) return ctx.report(report.error());
  const fs::path blobs = paths->blob_dir;
  ctx.print(json_report(*report, blobs), [&](const json::value&) { return human_report(*report, blobs); });
  if (const auto* differ = report->mismatch()) {
    ctx.err() << "agentry: table " << differ->table << " has " << differ->source_rows << " rows in SQLite but "
              << differ->target_rows << " in PostgreSQL: the copy was rolled back, and " << report->target
              << " holds no rows\n";
    return exit_code::runtime_error;
  }
  return exit_code::success;
}

}  // namespace agentry::cli
