#include "pg_store/repositories.hpp"

namespace agentry::pg_store {

void RunTokenRepository::insert(std::string_view token_sha256, std::string_view run_id, std::string_view at) {
  c_.query("INSERT INTO run_tokens (token_sha256, run_id, created_at) VALUES ($1, $2, $3)", {token_sha256, run_id, at});
}

std::optional<std::string> RunTokenRepository::run_of(std::string_view token_sha256) {
  auto result = c_.query("SELECT run_id FROM run_tokens WHERE token_sha256 = $1", {token_sha256});
  if (result.rows() == 0) return std::nullopt;
  return result.row(0)[0].text();
}

int RunTokenRepository::remove_for_run(std::string_view run_id) {
  return static_cast<int>(c_.query("DELETE FROM run_tokens WHERE run_id = $1", {run_id}).affected_rows());
}

int RunTokenRepository::remove_stale() {
  return static_cast<int>(
      c_.query("DELETE FROM run_tokens WHERE run_id NOT IN (SELECT id FROM runs WHERE status = 'running')")
          .affected_rows());
}

}  // namespace agentry::pg_store
