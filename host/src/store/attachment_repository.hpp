#pragma once
// Attachment rows (core/attachment.hpp); their contents are blobs (workspace/blob_store.hpp).

#include "core/attachment.hpp"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::store {

struct AttachmentTotals {
  int count = 0;
  std::uint64_t bytes = 0;
};

class AttachmentRepository {
 public:
  virtual ~AttachmentRepository() = default;

  virtual void insert(const core::Attachment& a) = 0;
  /// Oldest first.
  virtual std::vector<core::Attachment> list_for_run(std::string_view run_id) = 0;
  virtual std::vector<core::Attachment> list_for_group(std::string_view group_id) = 0;
  virtual std::optional<core::Attachment> get(std::string_view run_id, std::string_view id) = 0;
  /// An attachment of any run of the group.
  virtual std::optional<core::Attachment> get_in_group(std::string_view group_id, std::string_view id) = 0;
  virtual void remove(std::string_view id) = 0;
  virtual AttachmentTotals totals_for_run(std::string_view run_id) = 0;
  /// How many rows name this content.
  virtual int references(std::string_view sha256) = 0;
  /// Every content some row names (the startup sweep keeps these).
  virtual std::set<std::string> referenced() = 0;
};

}  // namespace agentry::store
