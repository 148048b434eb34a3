#pragma once
// The gauges GET /metrics reads off the store and the live runs when scraped: runs by
// status (every daemon sharing the store sees the same numbers) and the runs this
// daemon drives now.

#include "core/metrics.hpp"
#include "engine/live/live_runs.hpp"
#include "store/store.hpp"

namespace agentry::engine {

[[nodiscard]] core::metrics::CollectorHandle collect_run_metrics(store::Store& db, const LiveRuns& live);

}  // namespace agentry::engine
