#pragma once
// Attachment rows (core/attachment.hpp); their contents are blobs (workspace/blob_store.hpp).

#include "core/attachment.hpp"
#include "store/sqlite.hpp"

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
  static void insert(Connection& c, const core::Attachment& a);
  /// Oldest first.
  static std::vector<core::Attachment> list_for_run(Connection& c, std::string_view run_id);
  static std::vector<core::Attachment> list_for_group(Connection& c, std::string_view group_id);
  static std::optional<core::Attachment> get(Connection& c, std::string_view run_id, std::string_view id);
  /// An attachment of any run of the group.
  static std::optional<core::Attachment> get_in_group(Connection& c, std::string_view group_id, std::string_view id);
  static void remove(Connection& c, std::string_view id);
  static AttachmentTotals totals_for_run(Connection& c, std::string_view run_id);
  /// How many rows name this content.
  static int references(Connection& c, std::string_view sha256);
  /// Every content some row names (the startup sweep keeps these).
  static std::set<std::string> referenced(Connection& c);
};

}  // namespace agentry::store
