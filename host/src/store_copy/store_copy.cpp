#include "store_copy/store_copy.hpp"

#include "pg_store/migrations.hpp"
#include "pg_store/pg.hpp"
#include "sqlite_store/migrations.hpp"
#include "sqlite_store/sqlite.hpp"
#include "store_copy/copy_plan.hpp"
#include "store_copy/table_copy.hpp"
#include "store/store_error.hpp"

#include <algorithm>
#include <optional>
#include <system_error>

namespace agentry::store_copy {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

core::Result<sqlite_store::Connection> open_source(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return core::fail(core::ErrorCode::not_found,
                      "no SQLite store at " + path.string() + ": nothing to copy (the source is the agentry.db " +
                          "of AGENTRY_HOME; set AGENTRY_HOME to the home to copy)");
  }
  auto source = sqlite_store::Connection::open(path, /*read_only=*/true);
  const int version = sqlite_store::schema_version(source);
  if (version != sqlite_store::latest_schema_version()) {
    return core::fail(core::ErrorCode::conflict,
                      "the SQLite store at " + path.string() + " has schema version " + std::to_string(version) +
                          ", and this agentry copies version " +
                          std::to_string(sqlite_store::latest_schema_version()) +
                          (version < sqlite_store::latest_schema_version()
                               ? ": run `agentry store migrate` on it first (AGENTRY_STORE unset)"
                               : ": use the agentry that wrote it"));
  }
  return source;
}

core::Result<pg_store::Connection> open_target(const std::string& uri, int& version) {
  if (auto valid = pg_store::check_uri(uri); !valid) return valid.failure();
  auto target = pg_store::Connection::open(uri);
  if (!target) return target.failure();
  if (auto migrated = pg_store::migrate(*target); !migrated) return migrated.failure();
  version = pg_store::schema_version(*target);
  return target;
}

std::int64_t count_source(sqlite_store::Connection& source, const std::string& table) {
  auto s = source.prepare("SELECT count(*) FROM " + quote_identifier(table));
  return s.step() ? s.column_int64(0) : 0;
}

std::int64_t count_target(pg_store::Connection& target, const std::string& table) {
  return target.query("SELECT count(*) FROM " + quote_identifier(table)).row(0)[0].int64();
}

// EXCLUSIVE mode lets others read but not write until the copy commits, so no daemon
// started on the target meanwhile can add a row between the check and the copy.
core::Result<void> lock_empty_tables(pg_store::Connection& target, const std::vector<TablePlan>& plans) {
  std::string names;
  for (const auto& plan : plans) names += (names.empty() ? "" : ", ") + quote_identifier(plan.name);
  if (!names.empty()) target.exec("LOCK TABLE " + names + " IN EXCLUSIVE MODE");
  for (const auto& plan : plans) {
    if (const auto rows = count_target(target, plan.name); rows > 0) {
      return core::fail(core::ErrorCode::conflict,
                        "table " + plan.name + " of " + target.target() + " already holds " + std::to_string(rows) +
                            " row" + (rows == 1 ? "" : "s") +
                            ": store copy fills only an empty database (create a new one, or drop this one's tables)",
                        {{"table", plan.name}, {"rows", rows}});
    }
  }
  return core::ok();
}

core::Result<void> copy_tables(sqlite_store::Connection& source, pg_store::Connection& target,
                               const std::vector<TablePlan>& plans, const Progress& progress, CopyReport& report) {
  for (const auto& plan : plans) {
    auto copied = copy_table(source, target, plan, progress);
    if (!copied) return copied.failure();
    advance_identities(source, target, plan);
  }
  // Counted after every table is in: a cascade or trigger on the target would show here.
  for (const auto& plan : plans)
    report.tables.push_back({plan.name, count_source(source, plan.name), count_target(target, plan.name)});
  return core::ok();
}

// One transaction on each side: a snapshot of the source, all-or-nothing on the target.
core::Result<void> copy_in_transactions(sqlite_store::Connection& source, pg_store::Connection& target,
                                        const Progress& progress, CopyReport& report) {
  source.exec("BEGIN");
  target.exec("BEGIN");
  try {
    auto plans = plan_copy(source, target);
    core::Result<void> done = plans ? lock_empty_tables(target, *plans) : core::Result<void>(plans.failure());
    if (done) done = copy_tables(source, target, *plans, progress, report);
    if (done && report.mismatch() == nullptr) {
      target.exec("COMMIT");
      report.committed = true;
    } else {
      target.exec("ROLLBACK");
    }
    source.exec("COMMIT");
    return done;
  } catch (...) {
    try {
      target.exec("ROLLBACK");
    } catch (...) {
      // The connection is gone, and the server rolled back with it; the first error says why.
    }
    throw;
  }
}

}  // namespace

std::int64_t CopyReport::rows() const {
  std::int64_t total = 0;
  for (const auto& t : tables) total += t.target_rows;
  return total;
}

const TableCount* CopyReport::mismatch() const {
  auto it = std::find_if(tables.begin(), tables.end(), [](const auto& t) { return t.source_rows != t.target_rows; });
  return it == tables.end() ? nullptr : &*it;
}

core::Result<CopyReport> copy_into_postgresql(const CopyOptions& options) {
  const auto started = Clock::now();
  return store::guard([&]() -> core::Result<CopyReport> {
    auto source = open_source(options.source);
    if (!source) return source.failure();
    CopyReport report;
    report.source = options.source.string();
    report.target = pg_store::redact_uri(options.target_uri);
    auto target = open_target(options.target_uri, report.schema_version);
    if (!target) return target.failure();
    if (auto copied = copy_in_transactions(*source, *target, options.progress, report); !copied)
      return copied.failure();
    report.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
    return report;
  });
}

}  // namespace agentry::store_copy
