#pragma once
// What a project's `.agentry/` may do before the user trusts it. A cloned repository's
// definitions are someone else's wishes: until `agentry trust` records them (with a
// digest of every file, so a change needs trust again), they may not choose a program
// the daemon runs, read the daemon's environment beyond an allow-list, or replace the
// user's own definitions of the same name (search_roots puts them last).
//
// The definitions module only applies the decision (Roots::project_trusted); the
// engine keeps the trust records and makes it.

#include "core/notify_target.hpp"
#include "core/result.hpp"
#include "definitions/env.hpp"
#include "definitions/problem.hpp"
#include "definitions/roots.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::definitions {

/// Whether `file` lies in the project's `.agentry/` (after resolving symlinks).
bool is_project_file(const std::filesystem::path& file, const Roots& roots);

/// Whether `file` is bound by the untrusted-project rules.
bool is_untrusted_file(const std::filesystem::path& file, const Roots& roots);

/// "the project <dir> is not trusted: review its .agentry/ and run `agentry trust <dir>`"
std::string trust_hint(const Roots& roots);

/// The variables `file` may read: all of them, or for an untrusted project's file only
/// Roots::project_env_allow.
EnvAllow env_allow_for(const std::filesystem::path& file, const Roots& roots);

/// For an untrusted project's `file`: records that `field` (which `what` describes, e.g.
/// "names a launcher, a program") may not be used, and returns true. False otherwise.
bool refuse_if_untrusted(const std::filesystem::path& file, const Roots& roots, Diagnostics& diag,
                         const std::string& field, std::string_view what);

/// For an untrusted project's `file`: an error on `field` when it reads the environment
/// variable `name` the allow-list does not name. Returns true when refused.
bool refuse_env_if_untrusted(const std::filesystem::path& file, const Roots& roots, Diagnostics& diag,
                             const std::string& field, std::string_view name);

/// For an untrusted project's `file`: errors on `notify` targets that run a command or
/// read a signing secret from an environment variable the allow-list does not name.
void check_untrusted_notify(const std::filesystem::path& file, const Roots& roots, Diagnostics& diag,
                            const std::vector<core::NotifyTarget>& targets, const std::string& field);

/// Limits on what is digested: a project's definitions are a few dozen small files.
inline constexpr std::size_t max_trusted_files = 2000;
inline constexpr std::uintmax_t max_trusted_bytes = 32 * 1024 * 1024;

/// The SHA-256 (hex) of `<project_dir>/.agentry/` as it is now: every entry's relative
/// path, kind and content (a symlink's target text), sorted by path. NOT_FOUND when
/// there is no `.agentry/` directory; VALIDATION_FAILED past the limits above.
core::Result<std::string> project_digest(const std::filesystem::path& project_dir);

/// The nearest directory at or above `start` that holds a `.agentry/` directory.
std::optional<std::filesystem::path> find_project_dir(const std::filesystem::path& start);

}  // namespace agentry::definitions
