#pragma once
// The SQLite implementation of each store repository (store/*_repository.hpp): the same
// names in namespace sqlite_store, each bound to one connection for one transaction.
// Their SQL lives in the matching .cpp files of this folder.

#include "store/attachment_repository.hpp"
#include "store/daemon_repository.hpp"
#include "store/dependency_repository.hpp"
#include "store/event_repository.hpp"
#include "store/hook_audit_repository.hpp"
#include "store/notification_repository.hpp"
#include "store/parent_notification_repository.hpp"
#include "store/project_trust_repository.hpp"
#include "store/queued_message_repository.hpp"
#include "store/run_repository.hpp"
#include "store/run_token_repository.hpp"
#include "store/schedule_repository.hpp"
#include "store/session_repository.hpp"
#include "store/task_repository.hpp"
#include "sqlite_store/sqlite.hpp"

namespace agentry::sqlite_store {

using store::AttachmentTotals;
using store::RunPoint;
using store::DependencyEdge;
using store::OutboxEntry;
using store::ProjectTrustRecord;
using store::QueueTotals;
using store::ArmedSchedule;

class AttachmentRepository final : public store::AttachmentRepository {
 public:
  explicit AttachmentRepository(Connection& c) : c_(c) {}

  void insert(const core::Attachment& a) override;
  std::vector<core::Attachment> list_for_run(std::string_view run_id) override;
  std::vector<core::Attachment> list_for_group(std::string_view group_id) override;
  std::optional<core::Attachment> get(std::string_view run_id, std::string_view id) override;
  std::optional<core::Attachment> get_in_group(std::string_view group_id, std::string_view id) override;
  void remove(std::string_view id) override;
  AttachmentTotals totals_for_run(std::string_view run_id) override;
  int references(std::string_view sha256) override;
  std::set<std::string> referenced() override;

 private:
  Connection& c_;
};

class DaemonRepository final : public store::DaemonRepository {
 public:
  explicit DaemonRepository(Connection& c) : c_(c) {}

  void upsert(const store::DaemonMember& member) override;
  std::vector<store::DaemonMember> list() override;
  bool remove(std::string_view id) override;
  int remove_silent(std::int64_t age_ms) override;

 private:
  Connection& c_;
};

class DependencyRepository final : public store::DependencyRepository {
 public:
  explicit DependencyRepository(Connection& c) : c_(c) {}

  void insert(const std::string& run_id, const core::Dependency& dependency) override;
  bool remove(const std::string& run_id, core::DependencyType type, const std::string& target) override;
  int remove_all(const std::string& run_id) override;
  std::vector<core::Dependency> list(const std::string& run_id) override;
  std::map<std::string, std::vector<core::Dependency>> list_many(const std::vector<std::string>& run_ids) override;
  std::vector<DependencyEdge> naming(const std::string& run_id, const std::string& group_id) override;
  std::vector<std::string> groups_left(const std::string& run_id) override;
  std::vector<std::string> runs_with_dependencies() override;
  std::optional<RunPoint> point(const std::string& run_id) override;
  std::vector<RunPoint> group_members(const std::string& group_id) override;

 private:
  Connection& c_;
};

class AuditRepository final : public store::AuditRepository {
 public:
  explicit AuditRepository(Connection& c) : c_(c) {}

  void append(core::AuditEvent& event) override;
  std::vector<core::AuditEvent> list(std::string_view run_id, const core::EventPageQuery& q) override;
  std::int64_t last_cursor(std::string_view run_id) override;

 private:
  Connection& c_;
};

class TimelineRepository final : public store::TimelineRepository {
 public:
  explicit TimelineRepository(Connection& c) : c_(c) {}

  void append(core::TimelineEvent& event) override;
  void append_batch(const std::string& run_id, std::vector<core::TimelineEvent>& events) override;
  std::vector<core::TimelineEvent> list(std::string_view run_id, const core::EventPageQuery& q) override;
  std::optional<core::TimelineEvent> last_of_attempt(std::string_view run_id, std::string_view kind, int attempt_number) override;
  std::vector<core::TimelineEvent> last_of_attempts(std::string_view run_id, std::string_view kind, int first_attempt, int last_attempt, std::size_t limit) override;
  std::int64_t last_cursor(std::string_view run_id) override;
  void remove_all(std::string_view run_id) override;

 private:
  Connection& c_;
};

class HookAuditRepository final : public store::HookAuditRepository {
 public:
  explicit HookAuditRepository(Connection& c) : c_(c) {}

  void append(std::string_view run_id, const std::vector<core::HookAudit>& audits, int keep) override;
  int count(std::string_view run_id) override;
  std::vector<core::HookAudit> latest(std::string_view run_id, int limit) override;

 private:
  Connection& c_;
};

class RunWorktreeRepository final : public store::RunWorktreeRepository {
 public:
  explicit RunWorktreeRepository(Connection& c) : c_(c) {}

  void set(std::string_view run_id, const std::string& json) override;
  std::optional<std::string> get(std::string_view run_id) override;

 private:
  Connection& c_;
};

class NotificationRepository final : public store::NotificationRepository {
 public:
  explicit NotificationRepository(Connection& c) : c_(c) {}

  bool insert(const OutboxEntry& entry) override;
  std::vector<OutboxEntry> due(std::int64_t now_ms, int limit) override;
  std::optional<std::int64_t> next_due() override;
  std::optional<OutboxEntry> get(std::int64_t id) override;
  std::vector<OutboxEntry> list_for_run(std::string_view run_id) override;
  void update(const OutboxEntry& entry) override;
  void release(std::int64_t id, const std::string& payload_json, std::int64_t due_ms) override;
  int release_all_held(std::int64_t due_ms) override;

 private:
  Connection& c_;
};

class ParentNotificationRepository final : public store::ParentNotificationRepository {
 public:
  explicit ParentNotificationRepository(Connection& c) : c_(c) {}

  void upsert(const core::ParentNotification& notification) override;
  std::vector<core::ParentNotification> pending(std::string_view child_run_id) override;
  std::optional<core::ParentNotification> latest(std::string_view child_run_id) override;
  std::vector<std::string> children_with_pending() override;
  int remove_all(std::string_view child_run_id) override;

 private:
  Connection& c_;
};

class ProjectTrustRepository final : public store::ProjectTrustRepository {
 public:
  explicit ProjectTrustRepository(Connection& c) : c_(c) {}

  std::optional<ProjectTrustRecord> get(const std::string& project_dir) override;
  void put(const ProjectTrustRecord& record) override;
  bool remove(const std::string& project_dir) override;
  std::vector<ProjectTrustRecord> list() override;

 private:
  Connection& c_;
};

class QueuedMessageRepository final : public store::QueuedMessageRepository {
 public:
  explicit QueuedMessageRepository(Connection& c) : c_(c) {}

  void insert(const core::QueuedMessage& message) override;
  std::vector<core::QueuedMessage> list(std::string_view run_id) override;
  QueueTotals totals(std::string_view run_id) override;
  bool remove(std::string_view run_id, std::string_view message_id) override;
  int remove_all(std::string_view run_id) override;
  std::vector<std::string> run_ids() override;

 private:
  Connection& c_;
};

class RunRepository final : public store::RunRepository {
 public:
  explicit RunRepository(Connection& c) : c_(c) {}

  void insert(const core::Run& run) override;
  bool update(const core::Run& run) override;
  std::optional<core::Run> get(std::string_view id) override;
  bool exists(std::string_view id) override;
  std::vector<std::string> ids_updated_since(std::string_view since) override;
  std::int64_t others_commit_mark() override;
  std::int64_t count_live_children(std::string_view parent_id) override;
  bool remove(std::string_view id) override;
  core::RunPage list(const core::RunQuery& query) override;
  std::vector<std::string> ids_with_status(core::RunStatus status) override;
  std::vector<std::pair<std::string, std::string>> child_statuses(std::string_view parent_run_id) override;
  bool set_diffstat(std::string_view id, const std::optional<core::DiffStat>& stat) override;
  void set_initial_snapshot(std::string_view id, const std::string& json) override;
  std::optional<std::string> initial_snapshot(std::string_view id) override;
  std::int64_t next_audit_cursor(std::string_view id) override;
  std::int64_t next_timeline_cursor(std::string_view id, std::int64_t count) override;

 private:
  Connection& c_;
};

class RunTokenRepository final : public store::RunTokenRepository {
 public:
  explicit RunTokenRepository(Connection& c) : c_(c) {}

  void insert(std::string_view token_sha256, std::string_view run_id, std::string_view at) override;
  std::optional<std::string> run_of(std::string_view token_sha256) override;
  int remove_for_run(std::string_view run_id) override;
  int remove_stale() override;

 private:
  Connection& c_;
};

class ScheduleRepository final : public store::ScheduleRepository {
 public:
  explicit ScheduleRepository(Connection& c) : c_(c) {}

  void put(const core::Schedule& schedule) override;
  std::optional<core::Schedule> get(std::string_view run_id) override;
  bool remove(std::string_view run_id) override;
  std::map<std::string, core::Schedule> for_runs(const std::vector<std::string>& run_ids) override;
  void attach(std::vector<core::Run>& runs) override;
  void attach(core::Run& run) override;
  std::vector<ArmedSchedule> armed() override;

 private:
  Connection& c_;
};

class SessionRepository final : public store::SessionRepository {
 public:
  explicit SessionRepository(Connection& c) : c_(c) {}

  void insert(const core::Session& session) override;
  void update(const core::Session& session) override;
  std::optional<core::Session> get(std::string_view run_id, int index) override;
  std::vector<core::Session> list(std::string_view run_id) override;
  std::map<std::string, core::Session> latest(const std::vector<std::string>& run_ids) override;
  void insert_attempt(const core::Attempt& attempt) override;
  void update_attempt(const core::Attempt& attempt) override;
  std::vector<core::Attempt> list_attempts(std::string_view run_id) override;
  void remove_all(std::string_view run_id) override;

 private:
  Connection& c_;
};

class TaskRepository final : public store::TaskRepository {
 public:
  explicit TaskRepository(Connection& c) : c_(c) {}

  void insert(const core::Task& task) override;
  bool update(const core::Task& task) override;
  bool remove(std::string_view run_id, std::string_view task_id) override;
  void remove_all(std::string_view run_id) override;
  std::optional<core::Task> get(std::string_view run_id, std::string_view task_id) override;
  std::vector<core::Task> list(std::string_view run_id) override;
  int next_position(std::string_view run_id) override;
  std::map<std::string, core::TaskTally> tallies(const std::vector<std::string>& run_ids) override;

 private:
  Connection& c_;
};

}  // namespace agentry::sqlite_store
