#pragma once
// The bytes behind a manifest's attachments (`attachments/<id>/<file>` in the run's
// directory): found only inside that directory, and checked against the size and
// sha256 the manifest recorded before anything is copied.

#include "core/result.hpp"
#include "store_import/agent_runner/manifest_reader.hpp"

#include <filesystem>

namespace agentry::store_import::agent_runner {

/// The file of `attachment`, once its size and sha256 match the manifest's. VALIDATION
/// naming the field (attachments[i].relativePath, .size, .sha256) otherwise.
core::Result<std::filesystem::path> check_attachment_file(const std::filesystem::path& run_dir,
                                                          const ManifestAttachment& attachment, std::size_t index);

/// Lower-case hex SHA-256 of a file's bytes, and its size.
core::Result<std::pair<std::string, std::uint64_t>> hash_file(const std::filesystem::path& file);

}  // namespace agentry::store_import::agent_runner
