#pragma once
// Process exit codes, shared by every command so scripts can rely on them.

namespace agentry::cli::exit_code {

inline constexpr int success = 0;
inline constexpr int exhausted = 1;
inline constexpr int blocked = 2;
inline constexpr int config_error = 3;   // bad arguments, config or validation
inline constexpr int runtime_error = 4;  // backend, database or I/O failure
inline constexpr int cancelled = 130;    // SIGINT

}  // namespace agentry::cli::exit_code
