#include "pg_store/repositories.hpp"

namespace agentry::pg_store {
namespace {

constexpr std::string_view parent_notification_columns =
    "child_run_id, child_session_index, parent_run_id, state, reason, delivery, created_at, updated_at, delivered_at";

core::ParentNotification read_parent_notification(const Row& row) {
  core::ParentNotification n;
  n.child_run_id = row[0].text();
  n.child_session_index = static_cast<int>(row[1].int64());
  n.parent_run_id = row[2].text();
  n.state = row[3].text();
  n.reason = row[4].text();
  n.delivery = row[5].text();
  n.created_at = row[6].text();
  n.updated_at = row[7].text();
  n.delivered_at = row[8].optional_text();
  return n;
}

}  // namespace

void ParentNotificationRepository::upsert(const core::ParentNotification& n) {
  c_.query("INSERT INTO parent_notifications (" + std::string(parent_notification_columns) +
               ") VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) "
               "ON CONFLICT (child_run_id, child_session_index) DO UPDATE SET parent_run_id = excluded.parent_run_id, "
               "state = excluded.state, reason = excluded.reason, delivery = excluded.delivery, "
               "created_at = excluded.created_at, updated_at = excluded.updated_at, "
               "delivered_at = excluded.delivered_at",
           {n.child_run_id, n.child_session_index, n.parent_run_id, n.state, n.reason, n.delivery, n.created_at,
            n.updated_at, n.delivered_at});
}

std::vector<core::ParentNotification> ParentNotificationRepository::pending(std::string_view child_run_id) {
  auto result = c_.query("SELECT " + std::string(parent_notification_columns) +
                             " FROM parent_notifications WHERE child_run_id = $1 AND state = 'pending' "
                             "ORDER BY child_session_index",
                         {child_run_id});
  std::vector<core::ParentNotification> out;
  for (int i = 0; i < result.rows(); ++i) out.push_back(read_parent_notification(result.row(i)));
  return out;
}

std::optional<core::ParentNotification> ParentNotificationRepository::latest(std::string_view child_run_id) {
  auto result = c_.query("SELECT " + std::string(parent_notification_columns) +
                             " FROM parent_notifications WHERE child_run_id = $1 "
                             "ORDER BY child_session_index DESC LIMIT 1",
                         {child_run_id});
  if (result.rows() == 0) return std::nullopt;
  return read_parent_notification(result.row(0));
}

std::vector<std::string> ParentNotificationRepository::children_with_pending() {
  auto result = c_.query("SELECT DISTINCT child_run_id FROM parent_notifications WHERE state = 'pending'");
  std::vector<std::string> out;
  for (int i = 0; i < result.rows(); ++i) out.push_back(result.row(i)[0].text());
  return out;
}

int ParentNotificationRepository::remove_all(std::string_view child_run_id) {
  return static_cast<int>(
      c_.query("DELETE FROM parent_notifications WHERE child_run_id = $1", {child_run_id}).affected_rows());
}

}  // namespace agentry::pg_store
