#include "sqlite_store/repositories.hpp"
#include "store/usage_sql.hpp"

namespace agentry::sqlite_store {

void UsageRepository::add(const store::UsageIncrement& in) {
  const auto& t = in.usage.tokens;
  auto s = c_.prepare(store::usage_upsert_sql("?"));
  s.bind(1, in.run_id).bind(2, in.session_index).bind(3, in.attempt_number).bind(4, in.usage.model.value_or(""));
  s.bind(5, in.day).bind(6, t.input).bind(7, t.cached_input).bind(8, t.output).bind(9, t.reasoning);
  s.run();
  auto read = c_.prepare("SELECT usage_json FROM runs WHERE id = ?");
  read.bind(1, in.run_id);
  if (!read.step()) return;
  auto totals = core::decode_usage(read.column_optional_text(0));
  core::add_usage(totals, in.usage);
  auto write = c_.prepare("UPDATE runs SET usage_json = ? WHERE id = ?");
  write.bind(1, core::encode_usage(totals)).bind(2, in.run_id);
  write.run();
}

std::vector<store::UsageRow> UsageRepository::summarize(const store::UsageQuery& q) {
  auto s = c_.prepare(store::usage_summary_sql(q.by, "?"));
  s.bind(1, q.since.value_or("")).bind(2, q.until.value_or(""));
  std::vector<store::UsageRow> out;
  while (s.step()) {
    store::UsageRow row;
    row.key = s.column_text(0);
    if (auto model = s.column_text(1); !model.empty()) row.usage.model = model;
    row.usage.tokens = {s.column_int64(2), s.column_int64(3), s.column_int64(4), s.column_int64(5)};
    row.runs = s.column_int64(6);
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace agentry::sqlite_store
