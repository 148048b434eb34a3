#include "store_copy/table_copy.hpp"

#include "store_copy/copy_text.hpp"

#include <algorithm>

namespace agentry::store_copy {
namespace {

// Big enough that a round trip's cost vanishes, small enough not to matter in memory.
constexpr std::size_t flush_bytes = 1 << 20;
constexpr std::int64_t progress_every = 1000;

std::string select_sql(const TablePlan& plan) {
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < plan.columns.size(); ++i) sql += (i > 0 ? ", " : "") + plan.columns[i].source;
  return sql + " FROM " + quote_identifier(plan.name);
}

std::string copy_sql(const TablePlan& plan) {
  std::string sql = "COPY " + quote_identifier(plan.name) + " (";
  for (std::size_t i = 0; i < plan.columns.size(); ++i) sql += (i > 0 ? ", " : "") + quote_identifier(plan.columns[i].name);
  return sql + ") FROM STDIN";
}

// Appends the row's fields; false (with `bad` naming the column) for a flag that is not 0/1.
bool append_row(std::string& buffer, const sqlite_store::Statement& row, const TablePlan& plan, std::string& bad) {
  for (std::size_t i = 0; i < plan.columns.size(); ++i) {
    if (i > 0) buffer += '\t';
    const int index = static_cast<int>(i);
    if (row.column_is_null(index)) {
      append_copy_null(buffer);
      continue;
    }
    const std::string value = row.column_text(index);
    if (!plan.columns[i].boolean) {
      append_copy_field(buffer, value);
    } else if (value == "0" || value == "1") {
      buffer += value == "1" ? 't' : 'f';
    } else {
      bad = plan.name + "." + plan.columns[i].name + " holds '" + value + "'";
      return false;
    }
  }
  buffer += '\n';
  return true;
}

}  // namespace

core::Result<std::int64_t> copy_table(sqlite_store::Connection& source, pg_store::Connection& target,
                                      const TablePlan& plan, const Progress& progress) {
  auto rows = source.prepare(select_sql(plan));
  auto copy = target.copy_in(copy_sql(plan));
  std::string buffer;
  buffer.reserve(flush_bytes + flush_bytes / 4);
  std::int64_t sent = 0;
  std::string bad;
  while (rows.step()) {
    if (!append_row(buffer, rows, plan, bad))
      return core::fail(core::ErrorCode::validation, "cannot copy " + bad + ", which is not a boolean (0 or 1)");
    if (buffer.size() >= flush_bytes) {
      copy.write(buffer);
      buffer.clear();
    }
    if (++sent % progress_every == 0 && progress) progress(plan.name, sent, false);
  }
  copy.write(buffer);
  const std::int64_t stored = copy.finish();
  if (progress) progress(plan.name, stored, true);
  return stored;
}

void advance_identities(sqlite_store::Connection& source, pg_store::Connection& target, const TablePlan& plan) {
  for (const auto& column : plan.columns) {
    if (!column.identity) continue;
    std::int64_t highest = 0;
    // sqlite_sequence exists only once a table with AUTOINCREMENT does.
    auto has_sequence = source.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'");
    if (has_sequence.step()) {
      auto recorded = source.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?1");
      recorded.bind(1, plan.name);
      if (recorded.step()) highest = recorded.column_int64(0);
    }
    auto copied = target.query("SELECT max(" + quote_identifier(column.name) + ") FROM " + quote_identifier(plan.name));
    if (!copied.row(0)[0].is_null()) highest = std::max(highest, copied.row(0)[0].int64());
    if (highest == 0) continue;  // nothing was ever handed out: the sequence starts at 1 as it should
    target.query("SELECT setval(pg_get_serial_sequence($1, $2), $3::bigint)",
                 {quote_identifier(plan.name), column.name, highest});
  }
}

}  // namespace agentry::store_copy
