#include "engine/attachment_prompt.hpp"

#include "store/attachment_repository.hpp"
#include "store/transaction.hpp"

namespace agentry::engine {

std::string attachment_prompt_section(store::Transaction& c, const core::Run& run, const workspace::BlobStore* blobs) {
  if (!blobs) return {};
  const auto all = c.attachments().list_for_group(run.run_group_id);
  if (all.empty()) return {};
  // Bounded: the newest 20 are listed, the rest counted.
  constexpr std::size_t shown = 20;
  std::string out = "## Attachments\n\nFiles the user attached to this run (read-only; read them from these paths, "
                    "do not modify them):\n";
  const std::size_t first = all.size() > shown ? all.size() - shown : 0;
  for (std::size_t i = first; i < all.size(); ++i) {
    const auto& a = all[i];
    out += "- " + a.name + " (" + std::to_string(a.size) + " bytes): " + blobs->path_of(a.sha256).string() + "\n";
  }
  if (first > 0) out += "- ... and " + std::to_string(first) + " older attachments (`agentry attachment list " + run.id + "`)\n";
  return out;
}

}  // namespace agentry::engine
