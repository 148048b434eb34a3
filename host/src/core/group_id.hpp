#pragma once
// Run group ids as callers write them. agentry's own rule (letters, digits, `_ . : / -`)
// and agent-runner's (any printable text without `\`, trimmed) both hold: a group id is
// 1-128 characters after trimming white space, valid UTF-8, with no control
// character and no backslash. `/` is allowed (agentry's ids use it) between segments
// other than `.` and `..`: an environment's workspace may be `<hostRoot>/<group id>`.
// Task ids, queued message ids and other keys keep the narrower core::is_valid_key.

#include <optional>
#include <string>
#include <string_view>

namespace agentry::core {

inline constexpr std::size_t max_group_id_chars = 128;

/// The group id `text` names (trimmed), or nullopt when it is not one.
std::optional<std::string> normalize_group_id(std::string_view text);

/// What a group id may be, for error messages.
inline constexpr std::string_view group_id_rule =
    "1-128 characters after trimming, with no control character, no backslash, and no '/' at either end or "
    "around '.' or '..'";

}  // namespace agentry::core
