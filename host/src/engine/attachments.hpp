#pragma once
// Attachment commands: files a user hands to a run, stored once by content
// (workspace/blob_store.hpp) and named by rows in the run's store. Adding checks the
// limits (core/attachment.hpp) in the same write that inserts the row, so concurrent
// uploads cannot pass them together; a run's detail and audit show every change.

#include "core/attachment.hpp"
#include "core/result.hpp"
#include "engine/requests.hpp"
#include "events/event_bus.hpp"
#include "workspace/blob_store.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {
class Store;
}  // namespace agentry::store

namespace agentry::engine {

struct NewAttachment {
  std::string name;          // as the client sent it; sanitized here
  std::string content_type;  // as the client sent it; checked here
};

class Attachments {
 public:
  /// Contents under `blob_dir`. Without a usable directory every command fails with the
  /// reason (the rest of the engine works on). On a shared store the directory is shared
  /// by the members (AGENTRY_BLOB_DIR): content no attachment names any more is left to
  /// sweep(), since another member may be about to name it again.
  Attachments(store::Store& db, events::EventBus& bus, const std::filesystem::path& blob_dir);

  /// Where uploads are spooled; null when the blob directory is unusable.
  const workspace::BlobStore* blobs() const { return blobs_.get(); }

  /// Stores the spooled upload (the file is gone afterwards either way) as an
  /// attachment of the run: INVALID_REQUEST for a bad name, PAYLOAD_TOO_LARGE past a
  /// file's or the run's limits, NOT_FOUND for an unknown run.
  core::Result<core::Attachment> add_spooled(const std::string& run_id, const NewAttachment& what,
                                             const std::filesystem::path& spool_file, const Actor& actor);
  /// The same for contents written through a BlobWriter (WebSocket uploads).
  core::Result<core::Attachment> add_written(const std::string& run_id, const NewAttachment& what,
                                             std::unique_ptr<workspace::BlobWriter> writer, const Actor& actor);
  /// Copies a file on this machine (a hook's output) in as an attachment named `name`:
  /// it must be a regular file within the size limit.
  core::Result<core::Attachment> add_file(const std::string& run_id, const std::filesystem::path& path,
                                          const std::string& name, const Actor& actor,
                                          const std::string& content_type = "");
  /// Gives the run's attachment `attachment_id` the contents of the file at `path` (a
  /// hook's `replace`): same id, the new name and type when given, else its own; the
  /// run's limits count the new size instead of the old. Audited attachment.replaced.
  core::Result<core::Attachment> replace_file(const std::string& run_id, const std::string& attachment_id,
                                              const std::filesystem::path& path,
                                              const std::optional<std::string>& name,
                                              const std::optional<std::string>& content_type, const Actor& actor);
  /// INVALID_REQUEST unless the name is usable; checked before any byte is accepted.
  core::Result<std::string> check_name(const std::string& raw) const;

  /// Oldest first. `group`: every attachment of the run's group.
  core::Result<std::vector<core::Attachment>> list(const std::string& run_id, bool group);
  /// An attachment of the run or of a run in its group, with its content's path.
  core::Result<std::pair<core::Attachment, std::filesystem::path>> content(const std::string& run_id,
                                                                          const std::string& attachment_id);
  core::Result<core::Attachment> remove(const std::string& run_id, const std::string& attachment_id,
                                        const Actor& actor);
  /// Startup: spool files and contents no row names are removed.
  void sweep();

 private:
  core::Result<core::Attachment> insert(const std::string& run_id, const NewAttachment& what,
                                        const workspace::BlobInfo& blob, const Actor& actor);
  core::Failure unavailable() const;
  /// The file's contents as a blob being written (not yet adopted).
  core::Result<std::unique_ptr<workspace::BlobWriter>> read_file(const std::filesystem::path& path);

  store::Store& db_;
  events::EventBus& bus_;
  std::unique_ptr<workspace::BlobStore> blobs_;
  std::string blobs_error_;
};

}  // namespace agentry::engine
