#pragma once
// One of our live streams (summaries, a run's detail or its audit) with each frame
// rewritten into agent-runner's shape as it passes; cursors are kept, so a frame's id
// is still our durable cursor (agent-runner's audit cursors are durable too).

#include "api/event_stream.hpp"

#include <boost/json/object.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace agentry::api::compat {

/// The frame's JSON in their shape, or nothing to leave the frame out.
using FrameRewrite = std::function<std::optional<std::string>(const boost::json::object& native, std::int64_t cursor)>;

std::shared_ptr<EventStream> translating_stream(std::shared_ptr<EventStream> native, FrameRewrite rewrite);

}  // namespace agentry::api::compat
