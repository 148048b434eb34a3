#include "pg_store/repositories.hpp"

namespace agentry::pg_store {

void RunRequestRepository::insert(store::RunRequest& r) {
  r.id = c_.query("INSERT INTO run_requests (run_id, kind, payload_json, created_at) VALUES ($1, $2, $3, $4) "
                  "RETURNING id",
                  {r.run_id, r.kind, r.payload_json, r.created_at})
             .row(0)[0]
             .int64();
}

std::vector<store::RunRequest> RunRequestRepository::for_owner(const std::string& owner, int limit) {
  auto result = c_.query("SELECT r.id, r.run_id, r.kind, r.payload_json, r.created_at FROM run_requests r "
                         "JOIN run_leases l ON l.run_id = r.run_id WHERE l.owner = $1 AND l.held ORDER BY r.id LIMIT $2",
                         {owner, limit});
  std::vector<store::RunRequest> out;
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    out.push_back(store::RunRequest{row[0].int64(), row[1].text(), row[2].text(), row[3].text(), row[4].text()});
  }
  return out;
}

void RunRequestRepository::remove(std::int64_t id) { c_.query("DELETE FROM run_requests WHERE id = $1", {id}); }

}  // namespace agentry::pg_store
