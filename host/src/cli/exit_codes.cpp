#include "cli/exit_codes.hpp"

namespace agentry::cli::exit_code {

int for_error(const core::Error& error) {
  // A refusal changed nothing and was the request's fault; these are things that broke.
  return error.code == core::ErrorCode::internal || error.code == core::ErrorCode::unavailable ? runtime_error
                                                                                                : config_error;
}

int for_run_status(std::string_view status) {
  if (status == "exhausted") return exhausted;
  if (status == "blocked") return blocked;
  if (status == "error") return runtime_error;
  if (status == "aborted") return cancelled;
  return success;
}

bool is_terminal_status(std::string_view status) {
  return status == "success" || status == "blocked" || status == "exhausted" || status == "aborted" ||
         status == "error";
}

}  // namespace agentry::cli::exit_code
