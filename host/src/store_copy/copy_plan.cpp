#include "store_copy/copy_plan.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace agentry::store_copy {
namespace {

struct TargetColumn {
  std::string name;
  bool boolean = false;
  bool identity = false;
};

using TargetTables = std::map<std::string, std::vector<TargetColumn>>;

std::vector<std::string> source_tables(sqlite_store::Connection& source) {
  auto s = source.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  std::vector<std::string> names;
  while (s.step()) {
    auto name = s.column_text(0);
    if (!is_internal_table(name)) names.push_back(std::move(name));
  }
  return names;
}

std::vector<std::string> source_columns(sqlite_store::Connection& source, const std::string& table) {
  auto s = source.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid");
  s.bind(1, table);
  std::vector<std::string> names;
  while (s.step()) names.push_back(s.column_text(0));
  return names;
}

// A WITHOUT ROWID table has no rowid to stand in for a column.
bool has_rowid(sqlite_store::Connection& source, const std::string& table) {
  auto s = source.prepare("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?1");
  s.bind(1, table);
  return s.step() && s.column_int64(0) == 0;
}

// The base tables of the schema the migrations create tables in (the first of search_path).
TargetTables target_tables(pg_store::Connection& target) {
  auto rows = target.query(
      "SELECT c.table_name, c.column_name, c.data_type = 'boolean', c.is_identity = 'YES' "
      "FROM information_schema.columns c JOIN information_schema.tables t "
      "  ON t.table_schema = c.table_schema AND t.table_name = c.table_name "
      "WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' "
      "ORDER BY c.table_name, c.ordinal_position");
  TargetTables tables;
  for (int i = 0; i < rows.rows(); ++i) {
    const auto row = rows.row(i);
    auto table = row[0].text();
    if (is_internal_table(table)) continue;
    tables[table].push_back({row[1].text(), row[2].boolean(), row[3].boolean()});
  }
  return tables;
}

std::vector<std::pair<std::string, std::string>> target_references(pg_store::Connection& target) {
  auto rows = target.query(
      "SELECT child.relname, parent.relname FROM pg_constraint k "
      "JOIN pg_class child ON child.oid = k.conrelid JOIN pg_class parent ON parent.oid = k.confrelid "
      "WHERE k.contype = 'f' AND child.relnamespace = current_schema()::regnamespace");
  std::vector<std::pair<std::string, std::string>> references;
  for (int i = 0; i < rows.rows(); ++i) references.emplace_back(rows.row(i)[0].text(), rows.row(i)[1].text());
  return references;
}

core::Failure mismatch(const std::string& what) {
  return core::fail(core::ErrorCode::conflict,
                    "the SQLite and PostgreSQL schemas differ: " + what +
                        " (are both at this agentry's schema? run `agentry store migrate` on each)");
}

core::Result<TablePlan> plan_table(sqlite_store::Connection& source, const std::string& table,
                                   const std::vector<TargetColumn>& target) {
  const auto columns = source_columns(source, table);
  TablePlan plan{table, {}};
  for (const auto& column : target) {
    const bool in_source = std::find(columns.begin(), columns.end(), column.name) != columns.end();
    if (!in_source && !(column.identity && has_rowid(source, table)))
      return mismatch("column " + table + "." + column.name + " is only in PostgreSQL");
    plan.columns.push_back({column.name, in_source ? quote_identifier(column.name) : "rowid", column.boolean, column.identity});
  }
  for (const auto& name : columns) {
    const bool in_target = std::any_of(target.begin(), target.end(), [&](const auto& c) { return c.name == name; });
    if (!in_target) return mismatch("column " + table + "." + name + " is only in the SQLite store");
  }
  return plan;
}

}  // namespace

bool is_internal_table(std::string_view name) {
  // daemons is who serves now (engine/membership/): the members register themselves;
  // run_leases, run_requests and run_approvals are about the live attempts of the copied
  // home, which is not being served: its running runs are reconciled where it is served.
  return name.starts_with("sqlite_") || name == "schema_migrations" || name == "daemons" || name == "run_leases" ||
         name == "run_requests" || name == "run_approvals";
}

std::string quote_identifier(std::string_view name) {
  std::string out = "\"";
  for (char ch : name) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

core::Result<std::vector<std::string>> dependency_order(
    const std::vector<std::string>& tables, const std::vector<std::pair<std::string, std::string>>& references) {
  std::vector<std::string> ordered;
  std::set<std::string> placed;
  const std::set<std::string> known(tables.begin(), tables.end());
  auto ready = [&](const std::string& table) {
    return std::all_of(references.begin(), references.end(), [&](const auto& r) {
      return r.first != table || r.second == table || !known.contains(r.second) || placed.contains(r.second);
    });
  };
  while (ordered.size() < tables.size()) {
    auto next = std::find_if(tables.begin(), tables.end(),
                             [&](const std::string& t) { return !placed.contains(t) && ready(t); });
    if (next == tables.end()) {
      std::string left;
      for (const auto& t : tables)
        if (!placed.contains(t)) left += (left.empty() ? "" : ", ") + t;
      return core::fail(core::ErrorCode::conflict, "the foreign keys of these tables form a cycle: " + left);
    }
    placed.insert(*next);
    ordered.push_back(*next);
  }
  return ordered;
}

core::Result<std::vector<TablePlan>> plan_copy(sqlite_store::Connection& source, pg_store::Connection& target) {
  const auto names = source_tables(source);
  const auto target_columns = target_tables(target);
  for (const auto& [name, columns] : target_columns) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      return mismatch("table " + name + " is only in PostgreSQL");
  }
  auto order = dependency_order(names, target_references(target));
  if (!order) return order.failure();
  std::vector<TablePlan> plans;
  for (const auto& name : *order) {
    auto columns = target_columns.find(name);
    if (columns == target_columns.end()) return mismatch("table " + name + " is only in the SQLite store");
    auto plan = plan_table(source, name, columns->second);
    if (!plan) return plan.failure();
    plans.push_back(std::move(*plan));
  }
  return plans;
}

}  // namespace agentry::store_copy
