#pragma once
// Timeline events as readable text, for `agentry logs` and for following a run:
//   10:35:02 ── attempt 1 · session 0 · mock ──
//   10:35:03 agent: Looked: one file.
//   10:35:03 $ ls
//            │ a.txt
//   10:35:04 ── attempt 1 success ──
//   10:35:04 ══ run success: the agent finished ══
// Token deltas and resume tokens are not shown (the completed message carries the whole
// text); unknown kinds appear as "· <kind> <payload>".

#include <boost/json/object.hpp>

#include <string>

namespace agentry::cli {

/// Lines for one timeline event ({cursor, kind, attemptNumber, at, payload}), each
/// ending in '\n'; "" for events not shown.
std::string render_timeline_event(const boost::json::object& event);

/// Tool output lines shown before "… (N more lines)".
inline constexpr std::size_t max_tool_output_lines = 20;

}  // namespace agentry::cli
