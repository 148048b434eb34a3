// Lifecycle transitions of passive runs through the engine, against a real store.
#include "engine/engine.hpp"

#include "engine_fixture.hpp"

namespace agentry::engine::testing {
namespace {

TEST_F(EngineTest, PassiveRunSucceedsWhenAllTasksComplete) {
  auto run = start_run(feature_request());
  for (const char* task : {"plan", "build"}) {
    TaskPatch patch;
    patch.status = "completed";
    ASSERT_TRUE(engine_->tasks().update(run.id, task, patch, actor_).ok());
  }
  auto view = engine_->view(run.id);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->run.status, core::RunStatus::success);
  EXPECT_EQ(view->run.status_reason, "all tasks completed");
  EXPECT_TRUE(view->run.finished_at.has_value());
  EXPECT_EQ(view->sessions.back().status, "success");
  EXPECT_TRUE(view->sessions.back().ended_at.has_value());
}

TEST_F(EngineTest, PassiveRunBlocksOnABlockedTask) {
  auto run = start_run(feature_request());
  TaskPatch patch;
  patch.status = "blocked";
  ASSERT_TRUE(engine_->tasks().update(run.id, "build", patch, actor_).ok());
  auto view = engine_->view(run.id);
  EXPECT_EQ(view->run.status, core::RunStatus::blocked);
}

TEST_F(EngineTest, ResumeOpensANewSessionWithTheFollowUp) {
  auto run = start_run(feature_request());
  ASSERT_TRUE(engine_->abort(run.id, "", actor_).ok());
  auto resumed = engine_->resume(run.id, ResumeRequest{"try again"}, actor_);
  ASSERT_TRUE(resumed.ok()) << resumed.error().message;
  EXPECT_EQ(resumed->status, core::RunStatus::running);
  auto view = engine_->view(run.id);
  ASSERT_EQ(view->sessions.size(), 2u);
  EXPECT_EQ(view->sessions[0].status, "aborted");
  // The tasks as they stand now, then the follow-up.
  const std::string& prompt = view->sessions[1].prompt;
  EXPECT_EQ(prompt.rfind("## Tasks", 0), 0u) << prompt;
  EXPECT_EQ(prompt.substr(prompt.size() - 11), "\n\ntry again") << prompt;
  EXPECT_EQ(view->sessions[1].index, 1);
}

TEST_F(EngineTest, IllegalTransitionsAreConflictsAndChangeNothing) {
  auto run = start_run(feature_request());
  auto before = engine_->view(run.id)->run.revision;
  for (auto result : {engine_->archive(run.id, actor_), engine_->reset(run.id, actor_), engine_->ready(run.id, actor_),
                      engine_->resume(run.id, {}, actor_)}) {
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, core::ErrorCode::conflict);
  }
  EXPECT_EQ(engine_->remove(run.id, actor_).error().code, core::ErrorCode::conflict);
  EXPECT_EQ(engine_->view(run.id)->run.revision, before);
}

TEST_F(EngineTest, UnknownRunIsNotFound) {
  EXPECT_EQ(engine_->abort("nosuchrun0", "", actor_).error().code, core::ErrorCode::not_found);
  EXPECT_EQ(engine_->view("nosuchrun0").error().code, core::ErrorCode::not_found);
  EXPECT_EQ(engine_->tasks().list("nosuchrun0").error().code, core::ErrorCode::not_found);
}

TEST_F(EngineTest, ArchiveThenDeleteRemovesTheRun) {
  auto run = init_run(feature_request());
  ASSERT_TRUE(engine_->archive(run.id, actor_).ok());
  EXPECT_EQ(engine_->list(core::RunQuery{})->summaries.size(), 0u);
  core::RunQuery with_archived;
  with_archived.include_archived = true;
  EXPECT_EQ(engine_->list(with_archived)->summaries.size(), 1u);
  ASSERT_TRUE(engine_->remove(run.id, actor_).ok());
  EXPECT_EQ(engine_->view(run.id).error().code, core::ErrorCode::not_found);
}

TEST_F(EngineTest, ResetReturnsToTheInitializedSnapshotAndKeepsAudit) {
  auto run = start_run(feature_request());
  TaskPatch patch;
  patch.status = "completed";
  patch.notes = "done";
  ASSERT_TRUE(engine_->tasks().update(run.id, "plan", patch, actor_).ok());
  ASSERT_TRUE(engine_->abort(run.id, "stop", actor_).ok());

  auto reset = engine_->reset(run.id, actor_);
  ASSERT_TRUE(reset.ok()) << reset.error().message;
  auto view = engine_->view(run.id);
  EXPECT_EQ(view->run.status, core::RunStatus::initialized);
  EXPECT_EQ(view->run.session_count, 0);
  EXPECT_TRUE(view->sessions.empty());
  EXPECT_FALSE(view->run.started_at.has_value());
  ASSERT_EQ(view->tasks.size(), 2u);
  EXPECT_EQ(view->tasks[0].status, core::TaskStatus::pending);
  EXPECT_EQ(view->tasks[0].notes, "");

  auto audit = engine_->audit(run.id, {});
  std::vector<std::string> types;
  for (const auto& e : *audit) types.push_back(e.type);
  EXPECT_EQ(types.front(), "run.initialized");
  EXPECT_EQ(types.back(), "run.reset");
  EXPECT_GE(types.size(), 5u);
}

TEST_F(EngineTest, ReconfigureRerendersAndIsAllOrNothing) {
  auto run = init_run(feature_request("search"));
  ReconfigureRequest request;
  request.vars = boost::json::object{{"feature", "export"}, {"size", "large"}};
  auto changed = engine_->reconfigure(run.id, request, actor_);
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_EQ(changed->frozen.message, "Build export (large).");
  EXPECT_EQ(engine_->tasks().get(run.id, "plan")->title, "Plan export");

  ReconfigureRequest bad;
  bad.vars = boost::json::object{{"size", "enormous"}};
  bad.message = "new {{feature}}";
  auto refused = engine_->reconfigure(run.id, bad, actor_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, core::ErrorCode::validation);
  auto after = engine_->view(run.id);
  EXPECT_EQ(after->run.frozen.message, "Build export (large).");
  EXPECT_EQ(after->run.revision, changed->revision);

  ASSERT_TRUE(engine_->resume(run.id, {}, actor_).ok());
  auto late = engine_->reconfigure(run.id, request, actor_);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().code, core::ErrorCode::conflict);
}

TEST_F(EngineTest, MetadataEditsAreAudited) {
  auto run = init_run(feature_request());
  ASSERT_TRUE(engine_->set_name(run.id, "Dark mode", actor_).ok());
  ASSERT_TRUE(engine_->set_note(run.id, "remember the tests", actor_).ok());
  ASSERT_TRUE(engine_->set_pinned(run.id, true, actor_).ok());
  ASSERT_TRUE(engine_->set_group(run.id, "wave-2", actor_).ok());
  ASSERT_TRUE(engine_->set_backend_session(run.id, "session-1", actor_).ok());
  auto view = engine_->view(run.id);
  EXPECT_EQ(view->run.name, "Dark mode");
  EXPECT_EQ(view->run.note, "remember the tests");
  EXPECT_TRUE(view->run.pinned);
  EXPECT_EQ(view->run.run_group_id, "wave-2");
  EXPECT_EQ(view->run.backend_session_id, "session-1");
  ASSERT_TRUE(engine_->set_group(run.id, std::nullopt, actor_).ok());
  EXPECT_EQ(engine_->view(run.id)->run.run_group_id, run.id);
  EXPECT_EQ(engine_->audit(run.id, {})->size(), 7u);
}

TEST_F(EngineTest, RunsSurviveARestart) {
  auto run = start_run(feature_request());
  restart();
  auto view = engine_->view(run.id);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->run.status, core::RunStatus::running);
  EXPECT_EQ(view->tasks.size(), 2u);
}

}  // namespace
}  // namespace agentry::engine::testing
