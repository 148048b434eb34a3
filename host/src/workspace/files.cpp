#include "workspace/files.hpp"

#include "core/clock.hpp"
#include "core/utf8.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>

namespace agentry::workspace {
namespace json = boost::json;
using core::ErrorCode;

namespace {

constexpr std::array skipped_directories = {
    ".git", ".hg", ".svn", "node_modules", "bower_components", "jspm_packages", ".pnpm-store",
    ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", ".gradle", ".yarn",
};

std::string type_of(mode_t mode) {
  if (S_ISREG(mode)) return "file";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISLNK(mode)) return "symlink";
  return "other";
}

std::int64_t mtime_ms(const struct stat& info) {
  return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000 + info.st_mtim.tv_nsec / 1000000;
}

std::string join(const std::string& dir, const std::string& name) { return dir.empty() ? name : dir + "/" + name; }

/// The names in an open directory (not "." or ".."), sorted. The descriptor stays open.
core::Result<std::vector<std::string>> read_names(int dir_fd, const std::string& relative) {
  int copy = ::dup(dir_fd);
  if (copy < 0) return core::fail(ErrorCode::internal, "dup failed: " + std::string(std::strerror(errno)));
  DIR* dir = ::fdopendir(copy);
  if (!dir) {
    ::close(copy);
    return core::fail(ErrorCode::validation, "cannot read directory '" + relative + "': " + std::strerror(errno),
                      {{"path", relative}});
  }
  ::rewinddir(dir);
  std::vector<std::string> names;
  while (auto* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Walk {
  const Limits& limits;
  Deadline deadline;
  std::string needle;
  std::size_t limit;
  SearchResult& out;
  bool stop = false;

  void visit(int dir_fd, const std::string& relative, int depth) {
    auto names = read_names(dir_fd, relative);
    if (!names) return;  // unreadable directories are skipped, not fatal
    std::vector<std::string> subdirectories;
    for (const auto& name : *names) {
      if (stop) return;
      if (++out.visited > limits.max_search_visited) return halt("visited");
      if ((out.visited & 255) == 0 && deadline.passed()) return halt("deadline");
      struct stat info {};
      if (::fstatat(dir_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
      const std::string path = join(relative, name);
      if (lower(path).find(needle) != std::string::npos) {
        if (out.results.size() >= limit) return halt("limit");
        FileEntry entry{name, path, type_of(info.st_mode), std::nullopt, mtime_ms(info)};
        if (S_ISREG(info.st_mode)) entry.size = static_cast<std::uint64_t>(info.st_size);
        out.results.push_back(std::move(entry));
      }
      if (S_ISDIR(info.st_mode) && !is_skipped_directory(name)) subdirectories.push_back(name);
    }
    if (depth >= 128) return;
    for (const auto& name : subdirectories) {
      if (stop) return;
      FileDescriptor child(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!child.valid()) continue;
      visit(child.get(), join(relative, name), depth + 1);
    }
  }

  void halt(const char* reason) {
    stop = true;
    out.truncated = true;
    out.truncated_reason = reason;
  }
};

}  // namespace

bool is_skipped_directory(std::string_view name) {
  return std::find(skipped_directories.begin(), skipped_directories.end(), name) != skipped_directories.end();
}

core::Result<Listing> list_directory(const Root& root, std::string_view path, const Limits& limits) {
  auto resolved = root.resolve(path);
  if (!resolved) return resolved.failure();
  auto fd = root.open_directory(*resolved);
  if (!fd) return fd.failure();
  auto names = read_names(fd->get(), resolved->relative);
  if (!names) return names.failure();
  Listing listing;
  listing.path = resolved->relative;
  for (const auto& name : *names) {
    struct stat info {};
    if (::fstatat(fd->get(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
    FileEntry entry{name, join(resolved->relative, name), type_of(info.st_mode), std::nullopt, mtime_ms(info)};
    if (S_ISREG(info.st_mode)) entry.size = static_cast<std::uint64_t>(info.st_size);
    listing.entries.push_back(std::move(entry));
  }
  std::stable_sort(listing.entries.begin(), listing.entries.end(), [](const FileEntry& a, const FileEntry& b) {
    return (a.type == "directory") > (b.type == "directory");
  });
  if (listing.entries.size() > limits.max_list_entries) {
    listing.entries.resize(limits.max_list_entries);
    listing.truncated = true;
  }
  return listing;
}

core::Result<SearchResult> search_paths(const Root& root, std::string_view query, std::size_t limit,
                                        const Limits& limits) {
  if (query.empty())
    return core::fail(ErrorCode::invalid_request, "the search needs a non-empty 'q'", {{"field", "q"}});
  if (query.size() > 1024)
    return core::fail(ErrorCode::invalid_request, "'q' is over 1024 bytes", {{"field", "q"}});
  if (limit == 0) limit = limits.default_search_results;
  if (limit > limits.max_search_results)
    return core::fail(ErrorCode::invalid_request,
                      "'limit' must be 1-" + std::to_string(limits.max_search_results), {{"field", "limit"}});
  auto resolved = root.resolve("");
  if (!resolved) return resolved.failure();
  auto fd = root.open_directory(*resolved);
  if (!fd) return fd.failure();
  SearchResult out;
  out.query = std::string(query);
  Walk walk{limits, Deadline(limits.deadline), lower(query), limit, out};
  walk.visit(fd->get(), "", 0);
  return out;
}

namespace {

core::Result<std::string> read_all(OpenedFile& file, std::uint64_t max) {
  std::string bytes;
  bytes.resize(static_cast<std::size_t>(std::min<std::uint64_t>(file.size, max)) + 1);
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(file.fd.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return core::fail(ErrorCode::validation, "cannot read '" + file.relative + "': " + std::strerror(errno),
                        {{"path", file.relative}});
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  if (got > max)
    return core::fail(ErrorCode::payload_too_large,
                      "'" + file.relative + "' grew past the limit of " + std::to_string(max) + " bytes while read",
                      {{"path", file.relative}, {"reason", "too_large"}, {"limit", max}});
  return bytes;
}

}  // namespace

core::Result<Preview> preview_file(const Root& root, std::string_view path, const Limits& limits) {
  auto file = root.open_file(path);
  if (!file) return file.failure();
  if (file->size > limits.max_preview_bytes)
    return core::fail(ErrorCode::payload_too_large,
                      "'" + file->relative + "' is " + std::to_string(file->size) + " bytes, over the preview limit of " +
                          std::to_string(limits.max_preview_bytes) + "; download it raw instead",
                      {{"path", file->relative},
                       {"reason", "too_large"},
                       {"size", file->size},
                       {"limit", limits.max_preview_bytes}});
  auto bytes = read_all(*file, limits.max_preview_bytes);
  if (!bytes) return bytes.failure();
  if (bytes->find('\0') != std::string::npos)
    return core::fail(ErrorCode::validation, "'" + file->relative + "' is binary and has no text preview",
                      {{"path", file->relative}, {"reason", "binary"}});
  if (auto bad = core::first_invalid_utf8(*bytes))
    return core::fail(ErrorCode::validation,
                      "'" + file->relative + "' is not valid UTF-8 (at byte " + std::to_string(*bad) +
                          ") and has no text preview",
                      {{"path", file->relative}, {"reason", "invalid_utf8"}, {"offset", *bad}});
  Preview out;
  out.path = file->relative;
  out.size = bytes->size();
  out.modified_ms = file->modified_ms;
  out.content = std::move(*bytes);
  return out;
}

core::Result<RawFile> read_raw(const Root& root, std::string_view path, const Limits& limits) {
  auto file = root.open_file(path);
  if (!file) return file.failure();
  if (file->size > limits.max_raw_bytes)
    return core::fail(ErrorCode::payload_too_large,
                      "'" + file->relative + "' is " + std::to_string(file->size) +
                          " bytes, over the download limit of " + std::to_string(limits.max_raw_bytes),
                      {{"path", file->relative}, {"reason", "too_large"}, {"size", file->size},
                       {"limit", limits.max_raw_bytes}});
  auto bytes = read_all(*file, limits.max_raw_bytes);
  if (!bytes) return bytes.failure();
  RawFile out;
  out.path = file->relative;
  const auto slash = out.path.rfind('/');
  out.name = slash == std::string::npos ? out.path : out.path.substr(slash + 1);
  out.size = bytes->size();
  out.bytes = std::move(*bytes);
  return out;
}

core::Result<RawDownload> locate_raw(const Root& root, std::string_view path) {
  auto file = root.open_file(path);  // every confinement check, on the opened file too
  if (!file) return file.failure();
  RawDownload out;
  out.path = file->relative;
  const auto slash = out.path.rfind('/');
  out.name = slash == std::string::npos ? out.path : out.path.substr(slash + 1);
  out.size = file->size;
  out.absolute = root.path() / file->relative;
  return out;
}

json::object to_json(const FileEntry& entry) {
  json::object out{{"name", entry.name}, {"path", entry.path}, {"type", entry.type}};
  out["size"] = entry.size ? json::value(static_cast<std::int64_t>(*entry.size)) : json::value(nullptr);
  out["modifiedAt"] = core::format_iso8601(entry.modified_ms);
  return out;
}

json::object to_json(const Listing& listing) {
  json::array entries;
  for (const auto& e : listing.entries) entries.push_back(to_json(e));
  return {{"path", listing.path}, {"entries", std::move(entries)}, {"truncated", listing.truncated}};
}

json::object to_json(const SearchResult& result) {
  json::array results;
  for (const auto& e : result.results) results.push_back(to_json(e));
  json::object out{{"query", result.query}, {"results", std::move(results)}, {"truncated", result.truncated}};
  out["truncatedReason"] = result.truncated ? json::value(result.truncated_reason) : json::value(nullptr);
  return out;
}

json::object to_json(const Preview& preview) {
  return {{"path", preview.path},
          {"size", static_cast<std::int64_t>(preview.size)},
          {"encoding", "utf-8"},
          {"modifiedAt", core::format_iso8601(preview.modified_ms)},
          {"content", preview.content}};
}

}  // namespace agentry::workspace
