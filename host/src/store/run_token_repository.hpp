#pragma once
// The per-run tokens agents call back with (engine/live/run_tokens.hpp): hashes only.


#include <optional>
#include <string>
#include <string_view>

namespace agentry::store {

class RunTokenRepository {
 public:
  virtual ~RunTokenRepository() = default;

  virtual void insert(std::string_view token_sha256, std::string_view run_id, std::string_view at) = 0;
  /// The run a token hash belongs to.
  virtual std::optional<std::string> run_of(std::string_view token_sha256) = 0;
  /// Revokes every token of the run; returns how many there were.
  virtual int remove_for_run(std::string_view run_id) = 0;
  /// Revokes the tokens of runs that are no longer running (left by a crash).
  virtual int remove_stale() = 0;
};

}  // namespace agentry::store
