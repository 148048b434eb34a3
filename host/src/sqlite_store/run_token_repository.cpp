#include "sqlite_store/repositories.hpp"
namespace agentry::sqlite_store {

void RunTokenRepository::insert(std::string_view token_sha256, std::string_view run_id,
                                std::string_view at) {
  auto s = c_.prepare("INSERT INTO run_tokens (token_sha256, run_id, created_at) VALUES (?, ?, ?)");
  s.bind(1, token_sha256).bind(2, run_id).bind(3, at);
  s.run();
}

std::optional<std::string> RunTokenRepository::run_of(std::string_view token_sha256) {
  auto s = c_.prepare("SELECT run_id FROM run_tokens WHERE token_sha256 = ?");
  s.bind(1, token_sha256);
  if (!s.step()) return std::nullopt;
  return s.column_text(0);
}

int RunTokenRepository::remove_for_run(std::string_view run_id) {
  auto s = c_.prepare("DELETE FROM run_tokens WHERE run_id = ?");
  s.bind(1, run_id);
  s.run();
  return static_cast<int>(c_.changes());
}

int RunTokenRepository::remove_stale() {
  c_.exec("DELETE FROM run_tokens WHERE run_id NOT IN (SELECT id FROM runs WHERE status = 'running')");
  return static_cast<int>(c_.changes());
}

}  // namespace agentry::sqlite_store
