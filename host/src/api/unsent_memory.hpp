#pragma once
// What WebSocket connections hold of the daemon's stream memory (core/byte_budget.hpp):
// their outbox and the bytes their socket layer has accepted and not yet written. They
// count in a share of the budget (cli/local_stack.cpp), so that viewers can never take
// what the runs' unwritten events need. While the share has room a subscription polls a
// full batch into the outbox; once it is spent, a lean batch into an empty outbox only,
// and its reader falls behind into the feed's merged deltas and the store, as any slow
// reader does: nothing is lost. The share is passed by a lean batch and the write-ahead
// of each connection (8 KiB once the share is spent; up to 64 KiB begun before it was),
// and by frames larger than a typical one.
//
// SSE is not counted: its frames are shared with the feed's window (which counts them),
// a poll hands out about 128 KiB of them (events/timeline_feed.hpp), and the copy it
// joins small frames into lives only until that write completes. Counting those copies
// cost 100 fast SSE readers three quarters of their throughput (lean or uncopied
// batches), for memory that is bounded per connection already.

#include "core/byte_budget.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>

namespace agentry::api {

/// Frames a stream takes per poll while the share is spent.
inline constexpr std::size_t lean_batch_frames = 32;
/// What a poll of n frames reserves before it knows their sizes: a notice's envelope.
inline constexpr std::size_t typical_frame_bytes = 256;

/// How many frames the next poll takes, at most `full`: all of them when the share
/// (`unsent`, null: no limit) has room for that many typical frames, which `reservation`
/// then holds until the frames themselves are charged; else a lean batch.
inline std::size_t reserve_batch(const std::shared_ptr<core::ByteBudget>& unsent, std::size_t full,
                                 core::ByteHold& reservation) {
  if (!unsent) return full;
  const std::size_t bytes = full * typical_frame_bytes;
  if (!unsent->try_take(bytes)) return std::min(full, lean_batch_frames);
  reservation = core::ByteHold(unsent, bytes);
  return full;
}

/// Whether the share has room: a WebSocket writes ahead of its socket only then.
inline bool unsent_has_room(const core::ByteBudget* unsent) {
  return !unsent || unsent->used() < unsent->limit();
}

}  // namespace agentry::api
