#include "pg_store/repositories.hpp"

#include <boost/json.hpp>

namespace agentry::pg_store {

void ApprovalRepository::insert(std::string_view run_id, const core::PendingApproval& a) {
  c_.query("INSERT INTO run_approvals (run_id, approval_id, kind, summary, details_json, requested_at) "
           "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (run_id, approval_id) DO NOTHING",
           {run_id, a.approval_id, a.kind, a.summary, boost::json::serialize(a.details), a.requested_at});
}

std::vector<core::PendingApproval> ApprovalRepository::list(std::string_view run_id) {
  auto result = c_.query("SELECT approval_id, kind, summary, details_json, requested_at FROM run_approvals "
                         "WHERE run_id = $1 ORDER BY requested_at, approval_id",
                         {run_id});
  std::vector<core::PendingApproval> out;
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    boost::json::error_code ec;
    auto details = boost::json::parse(row[3].text(), ec);
    out.push_back(core::PendingApproval{row[0].text(), row[1].text(), row[2].text(),
                                        ec ? boost::json::value(nullptr) : std::move(details), row[4].text()});
  }
  return out;
}

bool ApprovalRepository::remove(std::string_view run_id, std::string_view approval_id) {
  return c_.query("DELETE FROM run_approvals WHERE run_id = $1 AND approval_id = $2", {run_id, approval_id})
             .affected_rows() > 0;
}

void ApprovalRepository::remove_all(std::string_view run_id) {
  c_.query("DELETE FROM run_approvals WHERE run_id = $1", {run_id});
}

}  // namespace agentry::pg_store
