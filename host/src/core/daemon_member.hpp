#pragma once
// A daemon as the other members of its store know it (engine/membership/,
// store/daemon_repository.hpp).

#include "core/text.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::core {

struct DaemonMember {
  std::string id;  ///< the daemon instance id
  std::string name;
  std::string host;
  std::int64_t pid = 0;
  /// The URL other members and clients reach it at; empty when it serves no API.
  std::string advertise_url;
  std::vector<std::string> labels;
  std::int64_t capacity = 0;  ///< live runs it takes at most; 0: no limit of its own
  /// Where it has runs' working directories (AGENTRY_WORKSPACE_ROOTS); none: anywhere.
  std::vector<std::string> workspace_roots;
  std::int64_t live_runs = 0;
  std::string version;
  std::string started_at;
  /// Read only: the database's clock at the last heartbeat (epoch ms) and how long
  /// before this read that was.
  std::int64_t heartbeat_ms = 0;
  std::int64_t heartbeat_age_ms = 0;
};

/// Lists as stored, one text each: labels comma-separated (a label never holds a comma:
/// core/placement.hpp), workspace roots newline-separated (a root never holds a newline).
inline std::string join_labels(const std::vector<std::string>& labels) { return join_with(labels, ','); }
inline std::vector<std::string> split_labels(std::string_view text) { return split_on(text, ','); }
inline std::string join_roots(const std::vector<std::string>& roots) { return join_with(roots, '\n'); }
inline std::vector<std::string> split_roots(std::string_view text) { return split_on(text, '\n'); }

}  // namespace agentry::core
