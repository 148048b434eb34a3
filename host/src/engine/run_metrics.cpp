#include "engine/run_metrics.hpp"

#include "core/log.hpp"
#include "store/run_repository.hpp"
#include "store/transaction.hpp"

#include <map>

namespace agentry::engine {

core::metrics::CollectorHandle collect_run_metrics(store::Store& db, const LiveRuns& live) {
  return core::metrics::registry().add_collector([&db, &live] {
    auto& r = core::metrics::registry();
    r.gauge("agentry_live_runs", "Runs this daemon drives now (an agent attached or being attached).")
        .set(static_cast<double>(live.count()));
    auto counts = db.read([](store::Transaction& t) -> core::Result<std::map<std::string, std::int64_t>> {
      return t.runs().count_by_status();
    });
    if (!counts) {
      core::log_warn("metrics: cannot count runs", {{"error", counts.error().message}});
      return;
    }
    for (auto status : {core::RunStatus::initialized, core::RunStatus::ready, core::RunStatus::running,
                        core::RunStatus::success, core::RunStatus::blocked, core::RunStatus::exhausted,
                        core::RunStatus::aborted, core::RunStatus::error}) {
      auto name = std::string(core::to_string(status));
      auto it = counts->find(name);
      r.gauge("agentry_runs", "Runs in the store, by status.", {{"status", name}})
          .set(it == counts->end() ? 0.0 : static_cast<double>(it->second));
    }
  });
}

}  // namespace agentry::engine
