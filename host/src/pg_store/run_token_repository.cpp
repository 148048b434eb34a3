#include "pg_store/repositories.hpp"

// PLACEHOLDER: replaced by the port of sqlite_store/run_token_repository.cpp
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace agentry::pg_store {

void RunTokenRepository::insert(std::string_view token_sha256, std::string_view run_id, std::string_view at) {
  throw PgError("RunTokenRepository::insert is not ported yet", "");
}

std::optional<std::string> RunTokenRepository::run_of(std::string_view token_sha256) {
  throw PgError("RunTokenRepository::run_of is not ported yet", "");
}

int RunTokenRepository::remove_for_run(std::string_view run_id) {
  throw PgError("RunTokenRepository::remove_for_run is not ported yet", "");
}

int RunTokenRepository::remove_stale() {
  throw PgError("RunTokenRepository::remove_stale is not ported yet", "");
}

}  // namespace agentry::pg_store
