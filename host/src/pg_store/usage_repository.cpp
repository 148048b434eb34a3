#include "pg_store/repositories.hpp"
#include "store/usage_sql.hpp"

namespace agentry::pg_store {

void UsageRepository::add(const store::UsageIncrement& in) {
  const auto& t = in.usage.tokens;
  c_.query(store::usage_upsert_sql("$"), {in.run_id, in.session_index, in.attempt_number,
                                           in.usage.model.value_or(""), in.day, t.input, t.cached_input, t.output,
                                           t.reasoning});
  // FOR UPDATE: two writers adding to one run's totals must not both read the old ones.
  auto current = c_.query("SELECT usage_json FROM runs WHERE id = $1 FOR UPDATE", {in.run_id});
  if (current.rows() == 0) return;
  auto totals = core::decode_usage(current.row(0)[0].optional_text());
  core::add_usage(totals, in.usage);
  c_.query("UPDATE runs SET usage_json = $1 WHERE id = $2", {core::encode_usage(totals), in.run_id});
}

std::vector<store::UsageRow> UsageRepository::summarize(const store::UsageQuery& q) {
  auto result = c_.query(store::usage_summary_sql(q.by, "$", "::text"), {q.since.value_or(""), q.until.value_or("")});
  std::vector<store::UsageRow> out;
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    store::UsageRow r;
    r.key = row[0].text();
    if (auto model = row[1].text(); !model.empty()) r.usage.model = model;
    r.usage.tokens = {row[2].int64(), row[3].int64(), row[4].int64(), row[5].int64()};
    r.runs = row[6].int64();
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace agentry::pg_store
