#pragma once
// store::Transaction over one PostgreSQL connection: the writer's (inside the write
// queue's transaction) or a pooled reader's (inside a read snapshot).

#include "pg_store/repositories.hpp"
#include "pg_store/pg.hpp"
#include "store/transaction.hpp"

namespace agentry::pg_store {

class PgTransaction final : public store::Transaction {
 public:
  explicit PgTransaction(Connection& c)
      : connection_(c), runs_(c), sessions_(c), tasks_(c), timeline_(c), audit_(c), schedules_(c),
        dependencies_(c), outbox_(c), parent_notifications_(c), attachments_(c), hook_audits_(c),
        worktrees_(c), run_tokens_(c), queued_messages_(c), project_trust_(c), daemons_(c) {}

  store::RunRepository& runs() override { return runs_; }
  store::SessionRepository& sessions() override { return sessions_; }
  store::TaskRepository& tasks() override { return tasks_; }
  store::TimelineRepository& timeline() override { return timeline_; }
  store::AuditRepository& audit() override { return audit_; }
  store::ScheduleRepository& schedules() override { return schedules_; }
  store::DependencyRepository& dependencies() override { return dependencies_; }
  store::NotificationRepository& outbox() override { return outbox_; }
  store::ParentNotificationRepository& parent_notifications() override { return parent_notifications_; }
  store::AttachmentRepository& attachments() override { return attachments_; }
  store::HookAuditRepository& hook_audits() override { return hook_audits_; }
  store::RunWorktreeRepository& worktrees() override { return worktrees_; }
  store::RunTokenRepository& run_tokens() override { return run_tokens_; }
  store::QueuedMessageRepository& queued_messages() override { return queued_messages_; }
  store::ProjectTrustRepository& project_trust() override { return project_trust_; }
  store::DaemonRepository& daemons() override { return daemons_; }

  void after_commit(std::function<void()> action) override { connection_.after_commit(std::move(action)); }

  /// For the PostgreSQL-only callers below the interface (tests).
  Connection& connection() { return connection_; }

 private:
  Connection& connection_;
  RunRepository runs_;
  SessionRepository sessions_;
  TaskRepository tasks_;
  TimelineRepository timeline_;
  AuditRepository audit_;
  ScheduleRepository schedules_;
  DependencyRepository dependencies_;
  NotificationRepository outbox_;
  ParentNotificationRepository parent_notifications_;
  AttachmentRepository attachments_;
  HookAuditRepository hook_audits_;
  RunWorktreeRepository worktrees_;
  RunTokenRepository run_tokens_;
  QueuedMessageRepository queued_messages_;
  ProjectTrustRepository project_trust_;
  DaemonRepository daemons_;
};

}  // namespace agentry::pg_store
