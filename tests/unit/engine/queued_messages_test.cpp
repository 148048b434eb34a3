// Queued resume messages: queued while a run is live, delivered together as one new
// session when the live session ends, cleared in that same commit; recovered after a
// restart unless the user aborted.
#include "live_run_fixture.hpp"

#include "store/queued_message_repository.hpp"
#include "store/run_repository.hpp"

namespace agentry::engine::testing {
namespace {

using QueuedMessagesTest = LiveRunTest;

std::vector<std::string> types_of(const std::vector<core::AuditEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.type);
  return out;
}

const core::AuditEvent* last_of(const std::vector<core::AuditEvent>& events, const std::string& type) {
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (it->type == type) return &*it;
  return nullptr;
}

TEST_F(QueuedMessagesTest, QueueListRemoveAndTheirAudit) {
  auto run = start_taskless("gated");
  auto one = engine_->queue_message(run.id, "first follow-up", actor_);
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->id.rfind("qm_", 0), 0u) << one->id;
  auto two = engine_->queue_message(run.id, "second follow-up", actor_);
  ASSERT_TRUE(two.ok());
  auto listed = engine_->list_queued_messages(run.id);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].text, "first follow-up");
  EXPECT_EQ((*listed)[1].text, "second follow-up");
  auto v = view_of(run.id);
  EXPECT_EQ(v.run.queued_message_count, 2);
  EXPECT_EQ(v.run.queued_messages.size(), 2u);

  ASSERT_TRUE(engine_->remove_queued_message(run.id, one->id, actor_).ok());
  auto again = engine_->remove_queued_message(run.id, one->id, actor_);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, core::ErrorCode::not_found);
  EXPECT_EQ(view_of(run.id).run.queued_message_count, 1);

  auto audit = audit_of(run.id);
  const auto* queued = last_of(audit, "run.message_queued");
  ASSERT_NE(queued, nullptr);
  EXPECT_EQ(queued->data.at("length").as_int64(), 16);  // the length, never the text
  EXPECT_FALSE(queued->data.contains("text"));
  ASSERT_NE(last_of(audit, "run.message_removed"), nullptr);
  ASSERT_TRUE(engine_->abort(run.id, "", actor_).ok());
}

TEST_F(QueuedMessagesTest, OnlyARunningRunTakesMessages) {
  auto run = init_run(feature_request());
  auto refused = engine_->queue_message(run.id, "too early", actor_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, core::ErrorCode::conflict);
  EXPECT_FALSE(core::capabilities(core::facts_of(run)).can_queue_message);
  EXPECT_EQ(engine_->queue_message(run.id, "", actor_).error().code, core::ErrorCode::invalid_request);
  EXPECT_EQ(engine_->queue_message(run.id, std::string(256 * 1024 + 1, 'x'), actor_).error().code,
            core::ErrorCode::invalid_request);
  EXPECT_EQ(engine_->queue_message("nope", "hi", actor_).error().code, core::ErrorCode::not_found);
}

TEST_F(QueuedMessagesTest, TheQueueIsBounded) {
  auto run = start_taskless("gated");
  for (int i = 0; i < 64; ++i) ASSERT_TRUE(engine_->queue_message(run.id, "m" + std::to_string(i), actor_).ok());
  auto full = engine_->queue_message(run.id, "one more", actor_);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().code, core::ErrorCode::conflict);
  auto aborted = engine_->abort(run.id, "", actor_);
  ASSERT_TRUE(aborted.ok());
}

TEST_F(QueuedMessagesTest, TheEndOfTheSessionDeliversThemInOneNewSession) {
  auto run = start_taskless("gated");
  ASSERT_TRUE(engine_->queue_message(run.id, "one", actor_).ok());
  auto two = engine_->queue_message(run.id, "two", actor_);
  ASSERT_TRUE(two.ok());
  ASSERT_TRUE(engine_->queue_message(run.id, "three", actor_).ok());
  ASSERT_TRUE(engine_->remove_queued_message(run.id, two->id, actor_).ok());
  open_gate();  // session 0 ends (success); session 1 opens with the queue
  ASSERT_TRUE(eventually([&] { return view_of(run.id).sessions.size() == 2; }));
  auto mid = view_of(run.id);
  EXPECT_EQ(mid.run.status, core::RunStatus::running);
  EXPECT_EQ(mid.run.queued_message_count, 0);
  EXPECT_TRUE(mid.run.queued_messages.empty());
  EXPECT_EQ(mid.sessions[0].status, "success");
  EXPECT_EQ(mid.sessions[1].prompt, "one\n\nthree");
  EXPECT_EQ(mid.run.attempt_count, 2);
  open_gate();
  auto v = settled(run.id);
  EXPECT_EQ(v.run.status, core::RunStatus::success);
  EXPECT_EQ(v.sessions.size(), 2u) << "exactly one delivery";
  auto audit = audit_of(run.id);
  const auto* resumed = last_of(audit, "run.resumed");
  ASSERT_NE(resumed, nullptr);
  EXPECT_EQ(resumed->data.at("source").as_string(), "queued_messages");
  EXPECT_EQ(resumed->data.at("count").as_int64(), 2);
  // run.finished of session 0 comes before the run.resumed that opened session 1.
  auto types = types_of(audit);
  auto finished = std::find(types.begin(), types.end(), "run.finished");
  auto delivered = std::find(types.begin(), types.end(), "run.resumed");
  EXPECT_LT(finished, delivered);
}

TEST_F(QueuedMessagesTest, AUserAbortKeepsThemForTheNextResume) {
  auto run = start_taskless("gated");
  ASSERT_TRUE(engine_->queue_message(run.id, "later", actor_).ok());
  auto aborted = engine_->abort(run.id, "stop", actor_);
  ASSERT_TRUE(aborted.ok());
  auto v = settled(run.id);
  EXPECT_EQ(v.run.status, core::RunStatus::aborted);
  EXPECT_EQ(v.sessions.size(), 1u) << "an abort delivers nothing";
  EXPECT_EQ(v.run.queued_message_count, 1);
  EXPECT_TRUE(core::capabilities(core::facts_of(v.run)).can_remove_queued_message);

  // Nor does a restart.
  restart();
  ASSERT_TRUE(engine_->reconcile_after_restart().ok());
  EXPECT_EQ(*engine_->deliver_queued_after_restart(), 0);

  // A resume takes them, ahead of its own message.
  ResumeRequest resume;
  resume.message = "now";
  ASSERT_TRUE(engine_->resume(run.id, resume, actor_).ok());
  auto r = view_of(run.id);
  EXPECT_EQ(r.sessions.back().prompt, "later\n\nnow");
  EXPECT_EQ(r.run.queued_message_count, 0);
  open_gate();
  settled(run.id);
}

TEST_F(QueuedMessagesTest, AShutdownLeavesThemForStartupToDeliver) {
  auto run = start_taskless("gated");
  ASSERT_TRUE(engine_->queue_message(run.id, "after the restart", actor_).ok());
  restart();  // the old engine stops its live runs as a shutting-down daemon does
  auto stopped = view_of(run.id);
  EXPECT_EQ(stopped.run.status, core::RunStatus::aborted);
  EXPECT_EQ(stopped.sessions.back().ended_by, "shutdown");
  EXPECT_EQ(stopped.run.queued_message_count, 1);
  ASSERT_TRUE(engine_->reconcile_after_restart().ok());
  auto delivered = engine_->deliver_queued_after_restart();
  ASSERT_TRUE(delivered.ok());
  EXPECT_EQ(*delivered, 1);
  auto v = view_of(run.id);
  EXPECT_EQ(v.run.status, core::RunStatus::running);
  ASSERT_EQ(v.sessions.size(), 2u);
  EXPECT_EQ(v.sessions[1].prompt, "after the restart");
  EXPECT_EQ(v.run.queued_message_count, 0);
  EXPECT_EQ(engine_->live_run_count(), 1u);
  EXPECT_TRUE(last_of(audit_of(run.id), "run.resumed")->data.at("recovered").as_bool());
  open_gate();
  EXPECT_EQ(settled(run.id).run.status, core::RunStatus::success);
  EXPECT_EQ(*engine_->deliver_queued_after_restart(), 0) << "delivered once";
}

TEST_F(QueuedMessagesTest, ARunFoundOrphanedAtStartupDeliversThem) {
  auto run = start_taskless("gated");
  ASSERT_TRUE(engine_->queue_message(run.id, "after the crash", actor_).ok());
  // What a killed daemon leaves: the run still running under a controller that is gone.
  restart();
  auto saved = db_->write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    auto r = *c.runs().get(run.id);
    r.status = core::RunStatus::running;
    r.controller_id = "daemon-1073741823-gone00";
    return c.runs().update(r);
  });
  ASSERT_TRUE(saved.ok());
  ASSERT_EQ(*engine_->reconcile_after_restart(), 1);
  EXPECT_EQ(*engine_->deliver_queued_after_restart(), 1);
  auto v = view_of(run.id);
  EXPECT_EQ(v.sessions.back().prompt, "after the crash");
  open_gate();
  settled(run.id);
}

TEST_F(QueuedMessagesTest, PassiveRunsDeliverWhenATaskChangeEndsTheSession) {
  auto run = start_run(feature_request());  // passive
  ASSERT_TRUE(engine_->queue_message(run.id, "review it too", actor_).ok());
  set_task(run.id, "plan", "completed");
  set_task(run.id, "build", "completed");  // success: the session ends, and the queue opens the next
  auto v = view_of(run.id);
  EXPECT_EQ(v.run.status, core::RunStatus::running);
  ASSERT_EQ(v.sessions.size(), 2u);
  EXPECT_EQ(v.sessions[0].status, "success");
  EXPECT_EQ(v.sessions[0].ended_by, "tasks");
  EXPECT_EQ(v.sessions[1].prompt, "review it too");
  EXPECT_EQ(v.run.queued_message_count, 0);
}

TEST_F(QueuedMessagesTest, ResetDropsThem) {
  auto run = start_run(feature_request());  // passive
  ASSERT_TRUE(engine_->queue_message(run.id, "never mind", actor_).ok());
  ASSERT_TRUE(engine_->abort(run.id, "", actor_).ok());
  ASSERT_TRUE(engine_->reset(run.id, actor_).ok());
  EXPECT_EQ(view_of(run.id).run.queued_message_count, 0);
  EXPECT_EQ(last_of(audit_of(run.id), "run.reset")->data.at("droppedQueuedMessages").as_int64(), 1);
}

}  // namespace
}  // namespace agentry::engine::testing
