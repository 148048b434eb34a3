#pragma once
// The paging vocabulary every layer shares: which runs a list page holds and which
// events a history page holds. The store answers these; the API parses them from
// requests; neither needs to know how the other works.

#include "core/run.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::core {

struct RunQuery {
  enum class Scope { global, cwd, repo, group };
  Scope scope = Scope::global;
  std::string value;  // the cwd, repo root or group id
  bool include_archived = false;
  std::size_t limit = 100;
  std::optional<std::string> after;  // opaque cursor from a previous page
};

struct RunPage {
  std::vector<Run> runs;
  std::optional<std::string> next_cursor;
};

/// Run page cursors are "<created_at>|<id>"; false when `cursor` cannot be one.
bool is_valid_run_page_cursor(std::string_view cursor);

struct EventPageQuery {
  std::int64_t after = 0;  // exclusive
  std::size_t limit = 1000;
  std::int64_t upto = std::numeric_limits<std::int64_t>::max();  // inclusive
  /// The newest `limit` events of the range instead of the oldest (still in cursor
  /// order): a viewer opens a long history at its end and pages backwards.
  bool newest = false;
  /// Timeline only: leave `payload` empty and give the stored text in `payload_json`
  /// (live streams frame it as it is).
  bool stored_payload = false;
};

}  // namespace agentry::core
