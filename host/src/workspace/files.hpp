#pragma once
// The run's files: a directory listing, a bounded path search, a UTF-8 text preview and
// a raw read, each through Root (confinement.hpp).

#include "core/result.hpp"
#include "workspace/confinement.hpp"
#include "workspace/limits.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::workspace {

struct FileEntry {
  std::string name;
  std::string path;  // cwd-relative
  std::string type;  // "file", "directory", "symlink", "other"
  std::optional<std::uint64_t> size;  // files only
  std::int64_t modified_ms = 0;
};

struct Listing {
  std::string path;  // the directory, cwd-relative ("" for the cwd)
  std::vector<FileEntry> entries;  // directories first, then by name
  bool truncated = false;
};

struct SearchResult {
  std::string query;
  std::vector<FileEntry> results;
  bool truncated = false;
  std::string truncated_reason;  // "limit", "visited", "deadline" when truncated
  std::size_t visited = 0;
};

struct Preview {
  std::string path;
  std::uint64_t size = 0;
  std::int64_t modified_ms = 0;
  std::string content;
};

struct RawFile {
  std::string path;
  std::string name;
  std::uint64_t size = 0;
  std::string bytes;
};

/// A file to download, found and checked as read_raw() does (a regular file with one
/// link, inside the root after symlink resolution, checked again once open), but not
/// read: the HTTP server streams it from `absolute` (HttpResponse::file), so its size
/// costs no memory and needs no cap.
struct RawDownload {
  std::string path;  // relative to the root, symlinks resolved
  std::string name;  // its last component, for Content-Disposition
  std::uint64_t size = 0;
  std::filesystem::path absolute;  // the root's real path / `path`: what was opened and checked
};

/// Directory names a search never enters: dependency trees and version-control data.
bool is_skipped_directory(std::string_view name);

core::Result<Listing> list_directory(const Root& root, std::string_view path, const Limits& limits);
/// Case-insensitive substring match on cwd-relative paths; dot-directories included,
/// symlinks listed but not followed. `limit` 0: the default.
core::Result<SearchResult> search_paths(const Root& root, std::string_view query, std::size_t limit,
                                        const Limits& limits);
/// VALIDATION_FAILED (details.reason "binary" or "invalid_utf8") for content that is not
/// UTF-8 text, PAYLOAD_TOO_LARGE over the preview limit.
core::Result<Preview> preview_file(const Root& root, std::string_view path, const Limits& limits);
core::Result<RawFile> read_raw(const Root& root, std::string_view path, const Limits& limits);
core::Result<RawDownload> locate_raw(const Root& root, std::string_view path);

boost::json::object to_json(const FileEntry& entry);
boost::json::object to_json(const Listing& listing);
boost::json::object to_json(const SearchResult& result);
boost::json::object to_json(const Preview& preview);

}  // namespace agentry::workspace
