#pragma once
// The one compact message a parent receives when a detached child's session ends
// (engine/parent_completion/parent_notifications.hpp): the child's id and terminal status, how to inspect
// it, and the last transcript of that session, bounded.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::engine {

/// At most this many bytes of the child's transcript go into the message.
inline constexpr std::size_t max_child_transcript_bytes = 4096;

/// Marks a transcript that was shortened; it stands on its own line before what is kept.
inline constexpr std::string_view truncated_marker = "[truncated]";

struct ChildCompletion {
  std::string child_run_id;
  std::optional<std::string> child_name;
  int session_index = 0;
  std::string status;         // the run status the session ended with
  std::string status_reason;  // may be empty
  /// The session's last assistant message texts, oldest first.
  std::vector<std::string> transcript;
};

/// The end of `text`: all of it when it fits in `limit` bytes, else `[truncated]` and a
/// newline followed by its last bytes, cut at a UTF-8 character boundary so that the
/// whole (marker included) stays within `limit`.
std::string bounded_transcript(std::string_view text, std::size_t limit = max_child_transcript_bytes);

/// The message text, for a queued message or the prompt of the parent's next session.
std::string parent_completion_message(const ChildCompletion& child,
                                      std::size_t transcript_limit = max_child_transcript_bytes);

}  // namespace agentry::engine
