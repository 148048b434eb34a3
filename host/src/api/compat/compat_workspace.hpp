#pragma once
// Our workspace answers (workspace/files.hpp, workspace/diff.hpp `to_json`, plus the
// operation's `runId`/`cwd`) as agent-runner's WorkspaceFileDirectory / Search / Content
// and WorkspaceDiff (W31, W32).

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>

namespace agentry::api::compat {

/// What their workspace DTOs state that ours do not: the run's cwd and the limits the
/// answer was produced under (the compat listener passes our WorkspaceLimits).
struct WorkspaceFacts {
  std::string cwd;
  std::int64_t max_entries = 5000;
  std::int64_t max_results = 1000;
  std::int64_t max_file_bytes = 1024 * 1024;
  std::int64_t max_diff_bytes = 2 * 1024 * 1024;
};

/// One native entry `{name, path, type, size, modifiedAt}` as WorkspaceFileEntry: kind is
/// directory or file (symlinks and others read as files, without text support).
boost::json::object ref_workspace_entry(const boost::json::object& native_entry, const WorkspaceFacts& facts);
/// `{runId, cwd, path, parentPath, entries, truncated, maxEntries}`.
boost::json::object ref_workspace_directory(const boost::json::object& native, const WorkspaceFacts& facts);
/// `{runId, cwd, query, matches, truncated, maxResults}`.
boost::json::object ref_workspace_search(const boost::json::object& native, const WorkspaceFacts& facts);
/// `{runId, cwd, path, name, size, mtimeMs, mediaType, markdown, text, maxBytes}`.
boost::json::object ref_workspace_file(const boost::json::object& native, const WorkspaceFacts& facts);
/// `{runId, cwd, repoRoot, mode, baseRef, headRef, comparison, displayRange, files,
/// stats, patch, truncated, maxBytes}`; statuses mapped onto their seven, `oldPath` only
/// when set.
boost::json::object ref_workspace_diff(const boost::json::object& native, const WorkspaceFacts& facts);

}  // namespace agentry::api::compat
