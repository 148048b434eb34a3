#include "sqlite_store/repositories.hpp"

namespace agentry::sqlite_store {

void RunRequestRepository::insert(store::RunRequest& r) {
  auto s = c_.prepare(
      "INSERT INTO run_requests (run_id, kind, payload_json, created_at) VALUES (?1, ?2, ?3, ?4) RETURNING id");
  s.bind(1, r.run_id).bind(2, r.kind).bind(3, r.payload_json).bind(4, r.created_at);
  s.step();
  r.id = s.column_int64(0);
}

std::vector<store::RunRequest> RunRequestRepository::for_owner(const std::string& owner, int limit) {
  auto s = c_.prepare("SELECT r.id, r.run_id, r.kind, r.payload_json, r.created_at FROM run_requests r "
                      "JOIN run_leases l ON l.run_id = r.run_id WHERE l.owner = ?1 AND l.held ORDER BY r.id LIMIT ?2");
  s.bind(1, owner).bind(2, limit);
  std::vector<store::RunRequest> out;
  while (s.step())
    out.push_back(store::RunRequest{s.column_int64(0), s.column_text(1), s.column_text(2), s.column_text(3),
                                    s.column_text(4)});
  return out;
}

void RunRequestRepository::remove(std::int64_t id) {
  auto s = c_.prepare("DELETE FROM run_requests WHERE id = ?1");
  s.bind(1, id);
  s.run();
}

}  // namespace agentry::sqlite_store
