#pragma once
// Attachment contents: immutable files under $AGENTRY_HOME/blobs/, named by their
// SHA-256 (blobs/ab/abcdef...). Content arrives in a spool file (blobs/tmp/, the same
// file system, so adopting it is a rename), is hashed, and becomes read-only; equal
// contents are stored once. Rows that name a blob live in SQLite; a blob no row names
// is removed by the caller (remove_unreferenced) or the startup sweep.

#include "core/result.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>

namespace agentry::workspace {

struct BlobInfo {
  std::string sha256;  // lower-case hex
  std::uint64_t size = 0;
};

/// Writes one spool file while hashing it, for contents that arrive in pieces (the
/// WebSocket byte streams). Not thread-safe; discarded (its file removed) unless adopted.
class BlobWriter {
 public:
  ~BlobWriter();
  BlobWriter(const BlobWriter&) = delete;
  BlobWriter& operator=(const BlobWriter&) = delete;
  core::Result<void> write(std::string_view bytes);
  std::uint64_t size() const { return size_; }

 private:
  friend class BlobStore;
  BlobWriter() = default;
  struct Hash;
  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::unique_ptr<Hash> hash_;
};

class BlobStore {
 public:
  /// `root` is created (0700) when missing.
  static core::Result<std::unique_ptr<BlobStore>> open(const std::filesystem::path& root);

  /// Where spool files are made (the HTTP server writes uploads there).
  const std::filesystem::path& spool_dir() const { return spool_; }
  /// A new empty spool file, 0600.
  core::Result<std::filesystem::path> make_spool_file() const;
  core::Result<std::unique_ptr<BlobWriter>> begin_write() const;

  /// Hashes the spool file and moves it into place (or drops it when that content is
  /// stored already). The spool file is gone afterwards either way.
  core::Result<BlobInfo> adopt(const std::filesystem::path& spool_file) const;
  core::Result<BlobInfo> adopt(std::unique_ptr<BlobWriter> writer) const;

  /// The stored file of a blob; `sha256` must be 64 lower-case hex digits.
  std::filesystem::path path_of(std::string_view sha256) const;
  bool valid_sha256(std::string_view sha256) const;
  /// Removes the blob's file (the caller checked that no row names it).
  void remove(std::string_view sha256) const;
  /// Startup: removes spool files and blobs that no row names (`referenced`), except
  /// those younger than `grace` (an upload in flight in another process).
  int sweep(const std::set<std::string>& referenced, std::chrono::seconds grace) const;

 private:
  explicit BlobStore(std::filesystem::path root);
  /// Moves a hashed spool file to its place (read-only), unless that content is there.
  core::Result<void> place(const std::filesystem::path& spool_file, const std::string& sha256) const;
  std::filesystem::path root_;
  std::filesystem::path spool_;
};

}  // namespace agentry::workspace
