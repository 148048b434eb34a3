#include "sqlite_store/repositories.hpp"

#include <boost/json.hpp>

namespace agentry::sqlite_store {

void ApprovalRepository::insert(std::string_view run_id, const core::PendingApproval& a) {
  auto s = c_.prepare(
      "INSERT INTO run_approvals (run_id, approval_id, kind, summary, details_json, requested_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (run_id, approval_id) DO NOTHING");
  s.bind(1, run_id).bind(2, a.approval_id).bind(3, a.kind).bind(4, a.summary);
  s.bind(5, boost::json::serialize(a.details)).bind(6, a.requested_at);
  s.run();
}

std::vector<core::PendingApproval> ApprovalRepository::list(std::string_view run_id) {
  auto s = c_.prepare("SELECT approval_id, kind, summary, details_json, requested_at FROM run_approvals "
                      "WHERE run_id = ?1 ORDER BY requested_at, approval_id");
  s.bind(1, run_id);
  std::vector<core::PendingApproval> out;
  while (s.step()) {
    boost::json::error_code ec;
    auto details = boost::json::parse(s.column_text(3), ec);
    out.push_back(core::PendingApproval{s.column_text(0), s.column_text(1), s.column_text(2),
                                        ec ? boost::json::value(nullptr) : std::move(details), s.column_text(4)});
  }
  return out;
}

bool ApprovalRepository::remove(std::string_view run_id, std::string_view approval_id) {
  auto s = c_.prepare("DELETE FROM run_approvals WHERE run_id = ?1 AND approval_id = ?2");
  s.bind(1, run_id).bind(2, approval_id);
  s.run();
  return c_.changes() > 0;
}

void ApprovalRepository::remove_all(std::string_view run_id) {
  auto s = c_.prepare("DELETE FROM run_approvals WHERE run_id = ?1");
  s.bind(1, run_id);
  s.run();
}

}  // namespace agentry::sqlite_store
