#include "core/lifecycle.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace agentry::core {
namespace {

constexpr std::array all_statuses{RunStatus::initialized, RunStatus::ready,     RunStatus::running,
                                  RunStatus::success,     RunStatus::blocked,   RunStatus::exhausted,
                                  RunStatus::aborted,     RunStatus::error};

constexpr std::array all_operations{
    Operation::ready,           Operation::resume,           Operation::abort,
    Operation::archive,         Operation::unarchive,        Operation::reset,
    Operation::remove,          Operation::reconfigure,      Operation::task_set_status,
    Operation::task_set_notes,  Operation::task_append_notes, Operation::task_add,
    Operation::task_edit_pending, Operation::task_delete_pending, Operation::set_backend_session,
    Operation::queue_message,   Operation::remove_queued_message, Operation::edit_dependencies};

const char* operation_name(Operation op) {
  switch (op) {
    case Operation::ready: return "ready";
    case Operation::resume: return "resume";
    case Operation::abort: return "abort";
    case Operation::archive: return "archive";
    case Operation::unarchive: return "unarchive";
    case Operation::reset: return "reset";
    case Operation::remove: return "remove";
    case Operation::reconfigure: return "reconfigure";
    case Operation::task_set_status: return "task_set_status";
    case Operation::task_set_notes: return "task_set_notes";
    case Operation::task_append_notes: return "task_append_notes";
    case Operation::task_add: return "task_add";
    case Operation::task_edit_pending: return "task_edit_pending";
    case Operation::task_delete_pending: return "task_delete_pending";
    case Operation::set_backend_session: return "set_backend_session";
    case Operation::queue_message: return "queue_message";
    case Operation::remove_queued_message: return "remove_queued_message";
    case Operation::edit_dependencies: return "edit_dependencies";
  }
  return "?";
}

std::string describe(const RunFacts& f) {
  return std::string("status=") + std::string(to_string(f.status)) + " archived=" + (f.archived ? "1" : "0") +
         " passive=" + (f.passive_backend ? "1" : "0") + " tasks_locked=" + (f.tasks_locked ? "1" : "0");
}

/// The capability boolean that answers "may I do `op`?".
bool capability_for(const RunCapabilities& c, Operation op) {
  switch (op) {
    case Operation::ready: return c.can_ready;
    case Operation::resume: return c.can_resume;
    case Operation::abort: return c.can_abort;
    case Operation::archive: return c.can_archive;
    case Operation::unarchive: return c.can_unarchive;
    case Operation::reset: return c.can_reset;
    case Operation::remove: return c.can_delete;
    case Operation::reconfigure: return c.can_reconfigure;
    case Operation::task_set_status: return c.task_mutation.can_set_status;
    case Operation::task_set_notes: return c.task_mutation.can_set_notes;
    case Operation::task_append_notes: return c.task_mutation.can_append_notes;
    case Operation::task_add: return c.task_mutation.can_add;
    case Operation::task_edit_pending: return c.task_mutation.can_edit_pending;
    case Operation::task_delete_pending: return c.task_mutation.can_delete_pending;
    case Operation::set_backend_session: return c.can_set_backend_session;
    case Operation::queue_message: return c.can_queue_message;
    case Operation::remove_queued_message: return c.can_remove_queued_message;
    case Operation::edit_dependencies: return c.can_edit_dependencies;
  }
  ADD_FAILURE() << "no capability for operation";
  return false;
}

std::vector<RunFacts> every_combination() {
  std::vector<RunFacts> out;
  for (RunStatus status : all_statuses)
    for (bool archived : {false, true})
      for (bool passive : {false, true})
        for (bool locked : {false, true}) out.push_back(RunFacts{status, archived, passive, locked});
  return out;
}

RunFacts facts(RunStatus status, bool archived = false, bool passive = false, bool locked = false) {
  return RunFacts{status, archived, passive, locked};
}

bool allowed(Operation op, const RunFacts& f) { return !refusal(op, f).has_value(); }

TEST(Lifecycle, CapabilitiesAgreeWithRefusalForEveryStateAndOperation) {
  const auto combinations = every_combination();
  ASSERT_EQ(combinations.size(), 8u * 2 * 2 * 2);
  for (const auto& f : combinations) {
    const RunCapabilities caps = capabilities(f);
    for (Operation op : all_operations) {
      EXPECT_EQ(capability_for(caps, op), !refusal(op, f).has_value())
          << operation_name(op) << " with " << describe(f);
    }
    EXPECT_EQ(caps.abort_reason, refusal(Operation::abort, f)) << describe(f);
    EXPECT_EQ(caps.reconfigure_reason, refusal(Operation::reconfigure, f)) << describe(f);
  }
}

TEST(Lifecycle, EveryRefusalIsANonEmptySentence) {
  for (const auto& f : every_combination()) {
    for (Operation op : all_operations) {
      auto why = refusal(op, f);
      if (!why) continue;
      SCOPED_TRACE(std::string(operation_name(op)) + " with " + describe(f));
      ASSERT_FALSE(why->empty());
      EXPECT_GE(why->size(), 10u) << *why;
      EXPECT_NE(why->find(' '), std::string::npos) << *why;
      EXPECT_NE(why->front(), ' ') << *why;
      EXPECT_NE(why->back(), ' ') << *why;
      EXPECT_EQ(why->find("unknown operation"), std::string::npos) << *why;
    }
  }
}

TEST(Lifecycle, AnImportedRunMissingHooksMayNotStartAgainButAllElseIsAsBefore) {
  for (auto f : every_combination()) {
    const auto complete = f;
    f.hooks_not_imported = "prepare:derive (its module /x/hook.mjs does not exist here)";
    for (Operation op : all_operations) {
      SCOPED_TRACE(std::string(operation_name(op)) + " with " + describe(complete));
      if (op != Operation::resume && op != Operation::ready) {
        EXPECT_EQ(allowed(op, f), allowed(op, complete));
        continue;
      }
      auto why = refusal(op, f);
      ASSERT_TRUE(why);
      if (allowed(op, complete)) {
        EXPECT_NE(why->find("prepare:derive"), std::string::npos) << *why;
      }
    }
  }
}

TEST(Lifecycle, RunningRunCanAbortButNotArchiveResetOrResume) {
  const auto f = facts(RunStatus::running);
  EXPECT_TRUE(allowed(Operation::abort, f));
  EXPECT_FALSE(allowed(Operation::archive, f));
  EXPECT_FALSE(allowed(Operation::reset, f));
  EXPECT_FALSE(allowed(Operation::resume, f));
  EXPECT_FALSE(allowed(Operation::ready, f));
  EXPECT_FALSE(allowed(Operation::reconfigure, f));
  EXPECT_FALSE(allowed(Operation::remove, f));
  const auto caps = capabilities(f);
  EXPECT_TRUE(caps.can_abort);
  EXPECT_FALSE(caps.abort_reason.has_value());
}

TEST(Lifecycle, OnlyARunningRunCanBeAborted) {
  for (RunStatus status : all_statuses) {
    if (status == RunStatus::running) continue;
    const auto caps = capabilities(facts(status));
    EXPECT_FALSE(caps.can_abort) << to_string(status);
    ASSERT_TRUE(caps.abort_reason.has_value()) << to_string(status);
    EXPECT_NE(caps.abort_reason->find(std::string(to_string(status))), std::string::npos) << *caps.abort_reason;
  }
}

TEST(Lifecycle, OnlyARunningRunTakesQueuedMessages) {
  for (RunStatus status : all_statuses) {
    for (bool passive : {false, true}) {
      const auto f = facts(status, false, passive);
      EXPECT_EQ(allowed(Operation::queue_message, f), status == RunStatus::running) << describe(f);
      // Removing one is how a user takes back a message the run has not consumed yet,
      // whatever the run is doing.
      EXPECT_TRUE(allowed(Operation::remove_queued_message, f)) << describe(f);
    }
  }
  auto why = refusal(Operation::queue_message, facts(RunStatus::success));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("success"), std::string::npos) << *why;
  EXPECT_NE(why->find("resume"), std::string::npos) << *why;
}

TEST(Lifecycle, InitializedRunCanBeReadiedAndReconfiguredButNotReset) {
  const auto f = facts(RunStatus::initialized);
  EXPECT_TRUE(allowed(Operation::ready, f));
  EXPECT_TRUE(allowed(Operation::reconfigure, f));
  EXPECT_TRUE(allowed(Operation::resume, f));
  EXPECT_TRUE(allowed(Operation::archive, f));
  EXPECT_FALSE(allowed(Operation::reset, f));
  EXPECT_FALSE(allowed(Operation::abort, f));
  const auto caps = capabilities(f);
  EXPECT_TRUE(caps.can_reconfigure);
  EXPECT_FALSE(caps.reconfigure_reason.has_value());
}

TEST(Lifecycle, OnlyAnInitializedRunCanBeReadiedOrReconfigured) {
  for (RunStatus status : all_statuses) {
    if (status == RunStatus::initialized) continue;
    const auto f = facts(status);
    EXPECT_FALSE(allowed(Operation::ready, f)) << to_string(status);
    EXPECT_FALSE(allowed(Operation::reconfigure, f)) << to_string(status);
    ASSERT_TRUE(capabilities(f).reconfigure_reason.has_value());
  }
}

TEST(Lifecycle, EndedRunsCanBeResumedResetAndArchived) {
  for (RunStatus status : {RunStatus::success, RunStatus::blocked, RunStatus::exhausted, RunStatus::aborted,
                           RunStatus::error}) {
    const auto f = facts(status);
    EXPECT_TRUE(allowed(Operation::resume, f)) << to_string(status);
    EXPECT_TRUE(allowed(Operation::reset, f)) << to_string(status);
    EXPECT_TRUE(allowed(Operation::archive, f)) << to_string(status);
    EXPECT_FALSE(allowed(Operation::unarchive, f)) << to_string(status);
    EXPECT_FALSE(allowed(Operation::remove, f)) << "a run must be archived before it is deleted";
  }
}

TEST(Lifecycle, ArchivedRunCanOnlyBeUnarchivedOrDeleted) {
  for (RunStatus status : all_statuses) {
    if (status == RunStatus::running) continue;  // a running run cannot be archived
    for (bool passive : {false, true}) {
      for (bool locked : {false, true}) {
        const auto f = facts(status, true, passive, locked);
        for (Operation op : all_operations) {
          const bool expected = op == Operation::unarchive || op == Operation::remove;
          EXPECT_EQ(allowed(op, f), expected) << operation_name(op) << " with " << describe(f);
        }
      }
    }
  }
}

TEST(Lifecycle, ArchivedRunRefusesTaskMutationsSayingToUnarchive) {
  const auto f = facts(RunStatus::success, true);
  for (Operation op : {Operation::task_set_status, Operation::task_set_notes, Operation::task_append_notes,
                       Operation::task_add, Operation::task_edit_pending, Operation::task_delete_pending}) {
    auto why = refusal(op, f);
    ASSERT_TRUE(why.has_value()) << operation_name(op);
    EXPECT_NE(why->find("unarchive"), std::string::npos) << *why;
  }
}

TEST(Lifecycle, LockedTasksRefuseStructuralEditsButAllowStatusAndNotes) {
  for (RunStatus status : all_statuses) {
    const auto f = facts(status, false, false, true);
    EXPECT_FALSE(allowed(Operation::task_add, f)) << to_string(status);
    EXPECT_FALSE(allowed(Operation::task_edit_pending, f)) << to_string(status);
    EXPECT_FALSE(allowed(Operation::task_delete_pending, f)) << to_string(status);
    EXPECT_TRUE(allowed(Operation::task_set_status, f)) << to_string(status);
    EXPECT_TRUE(allowed(Operation::task_set_notes, f)) << to_string(status);
    EXPECT_TRUE(allowed(Operation::task_append_notes, f)) << to_string(status);

    const auto unlocked = facts(status);
    EXPECT_TRUE(allowed(Operation::task_add, unlocked)) << to_string(status);
    EXPECT_TRUE(allowed(Operation::task_edit_pending, unlocked)) << to_string(status);
    EXPECT_TRUE(allowed(Operation::task_delete_pending, unlocked)) << to_string(status);
  }
  auto why = refusal(Operation::task_add, facts(RunStatus::running, false, false, true));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("locked"), std::string::npos) << *why;
}

TEST(Lifecycle, BackendSessionCanBeSetByHandOnlyOnPassiveRuns) {
  for (RunStatus status : all_statuses) {
    EXPECT_TRUE(allowed(Operation::set_backend_session, facts(status, false, true))) << to_string(status);
    EXPECT_FALSE(allowed(Operation::set_backend_session, facts(status, false, false))) << to_string(status);
    EXPECT_FALSE(allowed(Operation::set_backend_session, facts(status, true, true))) << to_string(status);
  }
  auto why = refusal(Operation::set_backend_session, facts(RunStatus::running));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("passive"), std::string::npos) << *why;
}

TEST(Lifecycle, ArchiveAndUnarchiveAreInverse) {
  EXPECT_FALSE(allowed(Operation::archive, facts(RunStatus::success, true)));
  EXPECT_TRUE(allowed(Operation::unarchive, facts(RunStatus::success, true)));
  EXPECT_TRUE(allowed(Operation::archive, facts(RunStatus::success, false)));
  EXPECT_FALSE(allowed(Operation::unarchive, facts(RunStatus::success, false)));
}

TEST(Lifecycle, FactsOfReadsStatusArchivedPassiveBackendAndTaskLock) {
  core::Run run;
  run.status = RunStatus::blocked;
  run.archived = true;
  run.frozen.backend = std::string(passive_backend);
  run.frozen.locked_fields = {"model", "tasks"};
  const RunFacts f = facts_of(run);
  EXPECT_EQ(f.status, RunStatus::blocked);
  EXPECT_TRUE(f.archived);
  EXPECT_TRUE(f.passive_backend);
  EXPECT_TRUE(f.tasks_locked);

  core::Run other;
  other.frozen.backend = "claude";
  other.frozen.locked_fields = {"model", "taskss", "task"};
  const RunFacts g = facts_of(other);
  EXPECT_EQ(g.status, RunStatus::initialized);
  EXPECT_FALSE(g.archived);
  EXPECT_FALSE(g.passive_backend);
  EXPECT_FALSE(g.tasks_locked);
}

Task task_with(TaskStatus status) {
  Task t;
  t.status = status;
  return t;
}

std::vector<Task> tasks_with(std::initializer_list<TaskStatus> statuses) {
  std::vector<Task> out;
  for (auto s : statuses) out.push_back(task_with(s));
  return out;
}

TEST(PassiveStatusFromTasks, NoTasksMeansStillRunning) {
  EXPECT_EQ(passive_status_from_tasks({}), RunStatus::running);
}

TEST(PassiveStatusFromTasks, AllCompletedMeansSuccess) {
  EXPECT_EQ(passive_status_from_tasks(tasks_with({TaskStatus::completed})), RunStatus::success);
  EXPECT_EQ(passive_status_from_tasks(tasks_with({TaskStatus::completed, TaskStatus::completed,
                                                  TaskStatus::completed})),
            RunStatus::success);
}

TEST(PassiveStatusFromTasks, AnyBlockedMeansBlockedEvenIfOthersCompleted) {
  EXPECT_EQ(passive_status_from_tasks(tasks_with({TaskStatus::blocked})), RunStatus::blocked);
  EXPECT_EQ(passive_status_from_tasks(tasks_with({TaskStatus::completed, TaskStatus::blocked,
                                                  TaskStatus::completed})),
            RunStatus::blocked);
  EXPECT_EQ(passive_status_from_tasks(tasks_with({TaskStatus::pending, TaskStatus::in_progress,
                                                  TaskStatus::blocked})),
            RunStatus::blocked);
}

TEST(PassiveStatusFromTasks, MixedWithoutBlockedMeansRunning) {
  EXPECT_EQ(passive_status_from_tasks(tasks_with({TaskStatus::completed, TaskStatus::pending})), RunStatus::running);
  EXPECT_EQ(passive_status_from_tasks(tasks_with({TaskStatus::completed, TaskStatus::in_progress})),
            RunStatus::running);
  EXPECT_EQ(passive_status_from_tasks(tasks_with({TaskStatus::pending})), RunStatus::running);
  EXPECT_EQ(passive_status_from_tasks(tasks_with({TaskStatus::in_progress})), RunStatus::running);
}

}  // namespace
}  // namespace agentry::core
