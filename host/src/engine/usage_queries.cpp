// Engine: the usage report (store/usage_repository.hpp), one store read.

#include "definitions/prices.hpp"
#include "engine/engine.hpp"
#include "store/store.hpp"
#include "store/transaction.hpp"
#include "store/usage_repository.hpp"

namespace agentry::engine {
namespace {

store::UsageGrouping store_grouping(UsageGrouping by) {
  switch (by) {
    case UsageGrouping::agent: return store::UsageGrouping::agent;
    case UsageGrouping::day: return store::UsageGrouping::day;
    case UsageGrouping::group: return store::UsageGrouping::group;
    case UsageGrouping::run: return store::UsageGrouping::run;
    case UsageGrouping::session: return store::UsageGrouping::session;
  }
  return store::UsageGrouping::agent;
}

}  // namespace

core::Result<std::vector<UsageRow>> Engine::usage(const UsageQuery& query) {
  definitions::refresh_current_prices(config_.config_dir);
  return db_.read([&](store::Transaction& c) -> core::Result<std::vector<UsageRow>> {
    std::vector<UsageRow> rows;
    for (auto& row : c.usage().summarize({store_grouping(query.by), query.since, query.until}))
      rows.push_back({std::move(row.key), std::move(row.usage)});
    return rows;
  });
}

}  // namespace agentry::engine
