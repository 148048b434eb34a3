#pragma once
// Counts what committed timeline events say happened, for GET /metrics: attempts
// started and finished, sessions ended, tokens used. Every durable event this process
// writes passes here once, after its commit.

#include "core/run.hpp"

#include <vector>

namespace agentry::events {

void count_timeline_events(const std::vector<core::TimelineEvent>& events);

}  // namespace agentry::events
