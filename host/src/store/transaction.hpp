#pragma once
// One unit of work against the store: every repository, seen through one transaction.
// A write job gets one that commits or rolls back as a whole; a read gets one over a
// consistent snapshot. Callers include the repository headers they use.

#include <functional>
#include <string_view>

namespace agentry::store {

class ApprovalRepository;
class AttachmentRepository;
class AuditRepository;
class DaemonRepository;
class DependencyRepository;
class HookAuditRepository;
class LeaseRepository;
class NotificationRepository;
class ParentNotificationRepository;
class ProjectTrustRepository;
class QueuedMessageRepository;
class RunRepository;
class RunRequestRepository;
class RunStartRepository;
class RunTokenRepository;
class RunWorktreeRepository;
class RunHookDataRepository;
class ScheduleRepository;
class SessionRepository;
class TaskRepository;
class TimelineRepository;
class TriggerDeliveryRepository;
class UsageRepository;

class Transaction {
 public:
  virtual ~Transaction() = default;

  virtual RunRepository& runs() = 0;
  virtual SessionRepository& sessions() = 0;
  virtual TaskRepository& tasks() = 0;
  virtual TimelineRepository& timeline() = 0;
  virtual AuditRepository& audit() = 0;
  virtual ScheduleRepository& schedules() = 0;
  virtual DependencyRepository& dependencies() = 0;
  /// Completion notifications waiting to be delivered.
  virtual NotificationRepository& outbox() = 0;
  virtual ParentNotificationRepository& parent_notifications() = 0;
  virtual AttachmentRepository& attachments() = 0;
  virtual HookAuditRepository& hook_audits() = 0;
  virtual RunWorktreeRepository& worktrees() = 0;
  virtual RunHookDataRepository& hook_data() = 0;
  virtual RunTokenRepository& run_tokens() = 0;
  virtual QueuedMessageRepository& queued_messages() = 0;
  virtual ProjectTrustRepository& project_trust() = 0;
  /// The daemons serving this store, with their heartbeats.
  virtual DaemonRepository& daemons() = 0;
  /// Who drives each running run, until when.
  virtual LeaseRepository& leases() = 0;
  /// What other members ask of the controller driving a run.
  virtual RunRequestRepository& run_requests() = 0;
  /// The approvals runs' live attempts wait on.
  virtual ApprovalRepository& approvals() = 0;
  /// The starts waiting for a member able to take their runs.
  virtual RunStartRepository& run_starts() = 0;
  /// The dedup keys of inbound trigger deliveries.
  virtual TriggerDeliveryRepository& trigger_deliveries() = 0;
  /// The tokens runs used (usage events), summed.
  virtual UsageRepository& usage() = 0;

  /// Wakes the other processes sharing the store that listen for `topic`
  /// (Store::set_wakeup_listener), once this transaction commits. A hint only: whoever
  /// listens also polls, so a lost wake-up delays work and never loses it.
  virtual void wake(std::string_view topic) = 0;

  /// Runs `action` once this transaction has committed (in commit order), or never if
  /// the write that registered it rolls back. For publishing what a write made
  /// durable; it must be quick and must not write.
  virtual void after_commit(std::function<void()> action) = 0;
};

}  // namespace agentry::store
