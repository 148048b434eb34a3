// Task commands: validation, the pending-only gates, notes and audit.
#include "engine/engine.hpp"

#include "engine_fixture.hpp"

namespace agentry::engine::testing {
namespace {

TEST_F(EngineTest, AddedTasksGoLastAndCanBeDeletedWhilePending) {
  auto run = init_run(feature_request());
  auto added = engine_->tasks().add(run.id, NewTask{std::nullopt, "Write docs", "README"}, actor_);
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_EQ(added->position, 2);
  EXPECT_EQ(added->source, "added");
  EXPECT_FALSE(added->id.empty());

  auto duplicate = engine_->tasks().add(run.id, NewTask{"plan", "Again", ""}, actor_);
  EXPECT_EQ(duplicate.error().code, core::ErrorCode::conflict);

  auto deleted = engine_->tasks().remove(run.id, added->id, actor_);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(engine_->tasks().list(run.id)->size(), 2u);
}

TEST_F(EngineTest, OnlyPendingTasksCanBeEditedOrDeleted) {
  auto run = start_run(feature_request());
  TaskPatch start;
  start.status = "in_progress";
  ASSERT_TRUE(engine_->tasks().update(run.id, "plan", start, actor_).ok());
  TaskPatch retitle;
  retitle.title = "New title";
  EXPECT_EQ(engine_->tasks().update(run.id, "plan", retitle, actor_).error().code, core::ErrorCode::conflict);
  EXPECT_EQ(engine_->tasks().remove(run.id, "plan", actor_).error().code, core::ErrorCode::conflict);
  ASSERT_TRUE(engine_->tasks().update(run.id, "build", retitle, actor_).ok());
  EXPECT_EQ(engine_->tasks().get(run.id, "build")->title, "New title");
}

TEST_F(EngineTest, InvalidTaskInputIsRejected) {
  auto run = init_run(feature_request());
  TaskPatch bad_status;
  bad_status.status = "finished";
  EXPECT_EQ(engine_->tasks().update(run.id, "plan", bad_status, actor_).error().code, core::ErrorCode::invalid_request);
  TaskPatch empty_title;
  empty_title.title = "";
  EXPECT_EQ(engine_->tasks().update(run.id, "plan", empty_title, actor_).error().code, core::ErrorCode::invalid_request);
  EXPECT_EQ(engine_->tasks().add(run.id, NewTask{"../x", "X", ""}, actor_).error().code, core::ErrorCode::invalid_request);
  EXPECT_EQ(engine_->tasks().get(run.id, "nope").error().code, core::ErrorCode::not_found);
  EXPECT_EQ(engine_->tasks().append_notes(run.id, "plan", "", actor_).error().code, core::ErrorCode::invalid_request);
}

TEST_F(EngineTest, AppendNotesAccumulatesLines) {
  auto run = init_run(feature_request());
  ASSERT_TRUE(engine_->tasks().append_notes(run.id, "plan", "first", actor_).ok());
  auto task = engine_->tasks().append_notes(run.id, "plan", "second", actor_);
  ASSERT_TRUE(task.ok());
  EXPECT_EQ(task->notes, "first\nsecond");
  auto audit = engine_->audit(run.id, {});
  EXPECT_EQ(audit->back().type, "task.notes_appended");
}

TEST_F(EngineTest, TaskChangesBumpTheRunRevision) {
  auto run = init_run(feature_request());
  TaskPatch patch;
  patch.status = "in_progress";
  ASSERT_TRUE(engine_->tasks().update(run.id, "plan", patch, actor_).ok());
  auto view = engine_->view(run.id);
  EXPECT_GT(view->run.revision, run.revision);
  auto page = engine_->list(core::RunQuery{});
  const auto& summary = page->summaries.at(0);
  EXPECT_EQ(summary.at("activeTask").at("id").as_string(), "plan");
  EXPECT_EQ(summary.at("taskCounts").at("inProgress").as_int64(), 1);
}

}  // namespace
}  // namespace agentry::engine::testing
