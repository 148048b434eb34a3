#pragma once
// The per-run tokens agents call back with (engine/run_tokens.hpp): hashes only.

#include "store/sqlite.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace agentry::store {

class RunTokenRepository {
 public:
  static void insert(Connection& c, std::string_view token_sha256, std::string_view run_id, std::string_view at);
  /// The run a token hash belongs to.
  static std::optional<std::string> run_of(Connection& c, std::string_view token_sha256);
  /// Revokes every token of the run; returns how many there were.
  static int remove_for_run(Connection& c, std::string_view run_id);
  /// Revokes the tokens of runs that are no longer running (left by a crash).
  static int remove_stale(Connection& c);
};

}  // namespace agentry::store
