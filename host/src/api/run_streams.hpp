#pragma once
// The four live projections as EventStream sources:
//   summaries  every run's RunSummary as it changes (summary_upsert / summary_removed)
//   detail     one run's RunDetail snapshot, first at connect, then on every change
//   timeline   one run's timeline envelopes from a cursor on (id: <cursor>), plus
//              ephemeral deltas (no id) as they happen
//   audit      one run's audit envelopes from a cursor on (id: <cursor>)

#include "api/event_stream.hpp"
#include "engine/engine.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace agentry::api {

/// Bounds on what a subscriber may hold in memory before it is disconnected (it then
/// reconnects with Last-Event-ID and catches up from the store).
inline constexpr std::size_t max_pending_ephemeral = 1024;
inline constexpr std::size_t max_pending_summaries = 10000;
inline constexpr std::size_t stream_page = 500;

std::shared_ptr<EventStream> make_summary_stream(engine::Engine& engine);
std::shared_ptr<EventStream> make_detail_stream(engine::Engine& engine, std::string run_id);
std::shared_ptr<EventStream> make_timeline_stream(engine::Engine& engine, std::string run_id, std::int64_t after);
std::shared_ptr<EventStream> make_audit_stream(engine::Engine& engine, std::string run_id, std::int64_t after);

}  // namespace agentry::api
