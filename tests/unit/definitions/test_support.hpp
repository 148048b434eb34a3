#pragma once
// Helpers for the definitions tests: a throwaway config directory on disk, a fake
// environment, and matchers for the problems errors carry.

#include "core/error.hpp"
#include "definitions/env.hpp"
#include "definitions/problem.hpp"
#include "definitions/roots.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::definitions::testing {

/// A unique directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// Writes `content` to path()/relative, creating directories; returns the full path.
  std::filesystem::path write(const std::filesystem::path& relative, std::string_view content) const;

 private:
  std::filesystem::path path_;
};

/// An environment holding exactly `values`.
EnvLookup fake_env(std::map<std::string, std::string> values = {});

/// The problems of a VALIDATION_FAILED error (details.problems).
std::vector<Problem> problems_of(const core::Error& error);

/// True when some problem's path ends with `path_suffix`, its field equals `field` and
/// its message contains `message_part`.
bool has_problem(const std::vector<Problem>& problems, std::string_view path_suffix,
                 std::string_view field, std::string_view message_part);

/// All problems, one per line, for assertion messages.
std::string dump(const std::vector<Problem>& problems);

/// How many definitions of each kind a config dir holds.
struct DefinitionCounts {
  std::size_t agents = 0, assignments = 0, launchers = 0, tasks = 0;
};
/// Lists every kind under `roots`, expecting no warning from any of them.
DefinitionCounts expect_every_kind_without_warnings(const Roots& roots);

}  // namespace agentry::definitions::testing
