#pragma once
// Files a user hands to a run (or its whole group): the row's values, the limits, and
// the one rule for the names they are stored and served under.

#include "core/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace agentry::core {

struct Attachment {
  std::string id;
  std::string run_id;
  std::string run_group_id;
  std::string name;
  std::string sha256;
  std::uint64_t size = 0;
  std::string content_type = "application/octet-stream";
  std::string created_at;
};

inline constexpr std::uint64_t max_attachment_bytes = 25ull * 1024 * 1024;
inline constexpr int max_attachments_per_run = 100;
inline constexpr std::uint64_t max_attachment_bytes_per_run = 100ull * 1024 * 1024;
inline constexpr std::size_t max_attachment_name_bytes = 255;

/// The name as stored: the last path component (after '/' or '\'), control characters
/// and quotes dropped, trimmed, cut to 255 bytes on a UTF-8 boundary. INVALID_REQUEST
/// when nothing usable is left, the name is "." or "..", or it is not UTF-8.
Result<std::string> sanitize_attachment_name(std::string_view raw);

/// A Content-Type worth keeping: "type/subtype" of token characters (parameters
/// dropped), else application/octet-stream.
std::string attachment_content_type(std::string_view raw);

}  // namespace agentry::core
