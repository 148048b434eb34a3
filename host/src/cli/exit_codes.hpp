#pragma once
// Process exit codes, shared by every command so scripts can rely on them:
//   0    success (for `run`/`resume`/`logs -f`: the run ended in success)
//   1    the run ended exhausted (its attempts ran out)
//   2    the run ended blocked (a task is blocked)
//   3    refused: bad arguments, invalid definitions or vars, unknown run or task, an
//        operation the run's state does not allow, a missing or wrong daemon token
//   4    failed: the run ended in error, or a backend, the database, the connection to
//        the daemon or agentry itself failed
//   `doctor` exits 1 when one of its checks failed
//   130  cancelled: the run was aborted, or Ctrl-C (SIGINT/SIGTERM) while following it

#include "core/error.hpp"

#include <string_view>

namespace agentry::cli::exit_code {

inline constexpr int success = 0;
inline constexpr int exhausted = 1;
inline constexpr int blocked = 2;
inline constexpr int config_error = 3;   // bad arguments, config or validation; refusals
inline constexpr int runtime_error = 4;  // backend, database or I/O failure
inline constexpr int cancelled = 130;    // SIGINT
inline constexpr int checks_failed = 1;  // doctor: at least one check failed

/// 3 for every refusal (INVALID_REQUEST, VALIDATION_FAILED, NOT_FOUND, CONFLICT,
/// UNAUTHENTICATED, ...), 4 for INTERNAL.
int for_error(const core::Error& error);
/// The exit code of a run that ended with `status`; 0 for statuses that are not an end.
int for_run_status(std::string_view status);
/// True for success, blocked, exhausted, aborted, error.
bool is_terminal_status(std::string_view status);

}  // namespace agentry::cli::exit_code
