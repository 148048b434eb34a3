#include "sqlite_store/repositories.hpp"
namespace agentry::sqlite_store {
namespace {

constexpr std::string_view parent_notification_columns =
    "child_run_id, child_session_index, parent_run_id, state, reason, delivery, created_at, updated_at, delivered_at";

core::ParentNotification read_parent_notification(const Statement& s) {
  core::ParentNotification n;
  n.child_run_id = s.column_text(0);
  n.child_session_index = s.column_int(1);
  n.parent_run_id = s.column_text(2);
  n.state = s.column_text(3);
  n.reason = s.column_text(4);
  n.delivery = s.column_text(5);
  n.created_at = s.column_text(6);
  n.updated_at = s.column_text(7);
  n.delivered_at = s.column_optional_text(8);
  return n;
}

}  // namespace

void ParentNotificationRepository::upsert(const core::ParentNotification& n) {
  auto s = c_.prepare("INSERT OR REPLACE INTO parent_notifications (" + std::string(parent_notification_columns) +
                     ") VALUES (?,?,?,?,?,?,?,?,?)");
  s.bind(1, n.child_run_id).bind(2, n.child_session_index).bind(3, n.parent_run_id).bind(4, n.state);
  s.bind(5, n.reason).bind(6, n.delivery).bind(7, n.created_at).bind(8, n.updated_at).bind(9, n.delivered_at);
  s.run();
}

std::vector<core::ParentNotification> ParentNotificationRepository::pending(std::string_view child_run_id) {
  auto s = c_.prepare("SELECT " + std::string(parent_notification_columns) +
                     " FROM parent_notifications WHERE child_run_id = ? AND state = 'pending' "
                     "ORDER BY child_session_index");
  s.bind(1, child_run_id);
  std::vector<core::ParentNotification> out;
  while (s.step()) out.push_back(read_parent_notification(s));
  return out;
}

std::optional<core::ParentNotification> ParentNotificationRepository::latest(std::string_view child_run_id) {
  auto s = c_.prepare("SELECT " + std::string(parent_notification_columns) +
                     " FROM parent_notifications WHERE child_run_id = ? ORDER BY child_session_index DESC LIMIT 1");
  s.bind(1, child_run_id);
  if (!s.step()) return std::nullopt;
  return read_parent_notification(s);
}

std::vector<std::string> ParentNotificationRepository::children_with_pending() {
  auto s = c_.prepare("SELECT DISTINCT child_run_id FROM parent_notifications WHERE state = 'pending'");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.column_text(0));
  return out;
}

int ParentNotificationRepository::remove_all(std::string_view child_run_id) {
  auto s = c_.prepare("DELETE FROM parent_notifications WHERE child_run_id = ?");
  s.bind(1, child_run_id);
  s.run();
  return static_cast<int>(c_.changes());
}

}  // namespace agentry::sqlite_store
