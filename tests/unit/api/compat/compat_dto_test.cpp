// agent-runner's run DTOs translated from real runs (a real engine on a SQLite file, the
// mock backend), in every status and with every part their RunDetail shows, each checked
// against the hand-written schema checkers, plus the values the translation decides.

#include "compat_fixture.hpp"

#include "core/clock.hpp"
#include "core/schedule.hpp"
#include "events/projections.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <utility>

namespace agentry::api::compat::testing {
namespace {
namespace json = boost::json;

const json::object& member(const json::object& o, const char* key) { return o.at(key).as_object(); }

TEST_F(CompatDtoTest, EveryStatusTranslatesAndPassesTheSchemas) {
  std::map<std::string, std::string> by_status;  // status -> run id
  by_status["initialized"] = init_run(feature_request()).id;
  {
    auto run = init_run(feature_request());
    ASSERT_TRUE(engine_->ready(run.id, actor_));
    by_status["ready"] = run.id;
  }
  by_status["running"] = start_run(feature_request()).id;
  {
    auto run = start_run(feature_request());
    set_task(run.id, "plan", "completed");
    set_task(run.id, "build", "completed");
    by_status["success"] = run.id;
  }
  {
    auto run = start_run(feature_request());
    set_task(run.id, "build", "blocked");
    by_status["blocked"] = run.id;
  }
  {
    auto run = start_run(feature_request());
    ASSERT_TRUE(engine_->abort(run.id, "enough", actor_));
    by_status["aborted"] = run.id;
  }
  by_status["exhausted"] = start_feature("failer").id;
  by_status["error"] = start_taskless("failer").id;
  for (const char* s : {"exhausted", "error"}) settled(by_status[s]);

  const std::map<std::string, json::value> exit_codes{
      {"initialized", nullptr}, {"ready", nullptr}, {"running", nullptr}, {"success", 0},
      {"blocked", 2},          {"exhausted", 1},   {"aborted", 130},      {"error", 4}};
  for (const auto& [status, id] : by_status) {
    SCOPED_TRACE(status);
    const auto ref = checked(id);
    EXPECT_EQ(ref.at("status").as_string(), status);
    EXPECT_EQ(ref.at("effectiveStatus"), ref.at("status"));
    EXPECT_EQ(ref.at("exitCode"), exit_codes.at(status));
    EXPECT_EQ(ref.at("isLive").as_bool(), status == "running");
    EXPECT_EQ(ref.at("workspaceDir").as_string(), (facts_.workspace_root / id).string());
    EXPECT_EQ(ref.at("startedAt"), native_listed(id).at("createdAt")) << "theirs is the creation time";
    EXPECT_EQ(member(ref, "execution").at("hostMode").as_string(), "daemon");
    EXPECT_EQ(member(member(ref, "execution"), "controller").at("daemonInstanceId").as_string(), "daemon-compat-test");
    // Every ended session has the exit code of its status; an open one has none.
    for (const auto& s : ref.at("sessions").as_array()) {
      const auto& session = s.as_object();
      if (session.at("endedAt").is_null())
        EXPECT_TRUE(session.at("exitCode").is_null());
      else
        EXPECT_EQ(session.at("exitCode"), exit_codes.at(std::string(session.at("status").as_string())));
    }
    // Capabilities: a reason exactly when refused, in their words.
    const auto& caps = member(ref, "capabilities");
    if (status == "running") {
      EXPECT_TRUE(caps.at("canAbort").as_bool());
      EXPECT_FALSE(caps.contains("abortReason")) << "absent, not null, when allowed";
    } else {
      EXPECT_EQ(caps.at("abortReason").as_string(),
                status == "initialized" || status == "ready" ? "not_active_in_daemon" : "already_terminal");
    }
    if (status == "initialized") {
      EXPECT_TRUE(caps.at("canReconfigure").as_bool());
      EXPECT_FALSE(caps.contains("reconfigureReason"));
    } else {
      EXPECT_EQ(caps.at("reconfigureReason").as_string(), "not_initialized");
    }
    EXPECT_EQ(member(caps, "taskMutation").at("canEditNotes").as_bool(),
              native_detail(id).at("capabilities").as_object().at("taskMutation").as_object().at("canSetNotes").as_bool());
    // The brief is the pending prompt until a first attempt.
    if (status == "initialized" || status == "ready")
      EXPECT_EQ(ref.at("pendingPrompt"), native_detail(id).at("brief"));
    else
      EXPECT_TRUE(ref.at("pendingPrompt").is_null());
    EXPECT_EQ(member(ref, "agent").at("name"), native_listed(id).at("agent"));
    if (status == "error") {  // the taskless run of an agent alone
      EXPECT_TRUE(ref.at("assignment").is_null());
      EXPECT_EQ(ref.at("tasksTotal").as_int64(), 0);
      continue;
    }
    EXPECT_EQ(ref.at("tasksTotal").as_int64(), 2);
    EXPECT_EQ(ref.at("tasksCompleted").as_int64(), status == "success" ? 2 : 0);
    EXPECT_EQ(member(ref, "assignment").at("name").as_string(), "feature");
    EXPECT_EQ(member(ref, "assignment").size(), 2u) << "strict: name and sourcePath only";
  }

  // Archived: theirs says so through archivedAt and the reconfigure reason.
  const auto& done = by_status["success"];
  ASSERT_TRUE(engine_->archive(done, actor_));
  const auto archived = checked(done);
  EXPECT_TRUE(archived.at("archivedAt").is_string());
  EXPECT_EQ(member(archived, "capabilities").at("reconfigureReason").as_string(), "archived");
  EXPECT_TRUE(member(archived, "capabilities").at("canUnarchive").as_bool());
}

TEST_F(CompatDtoTest, ALiveSessionShowsItsAttemptRangeFromTheListAndTheView) {
  auto run = start_feature("gated");
  open_gate();  // attempt 1 ends with the tasks open: attempt 2 starts
  ASSERT_TRUE(eventually([&] { return view_of(run.id).attempts.size() == 2; }));
  const auto ref = checked(run.id);
  const auto summary = ref_summary(native_listed(run.id), facts_);
  for (const auto* s : {&summary, &ref}) {
    for (const char* key : {"currentSession", "lastSession"}) {
      const auto& session = s->at(key).as_object();
      EXPECT_EQ(session.at("sessionIndex").as_int64(), 0) << key;
      EXPECT_EQ(session.at("firstAttemptNumber").as_int64(), 1) << key;
      EXPECT_EQ(session.at("lastAttemptNumber").as_int64(), 2) << key;
      EXPECT_EQ(session.at("attemptCount").as_int64(), 2) << key;
      EXPECT_EQ(session.at("maxAttemptsPerSession").as_int64(), 3) << key;
      EXPECT_TRUE(session.at("exitCode").is_null()) << key;
    }
  }
  EXPECT_TRUE(ref.at("isLive").as_bool());
  EXPECT_TRUE(member(ref, "currentSession").at("message").is_string()) << "the view knows the session's prompt";
  EXPECT_TRUE(member(summary, "currentSession").at("message").is_null()) << "lists leave prompts out";
  ASSERT_TRUE(engine_->abort(run.id, "done", actor_));
  const auto ended = checked(settled(run.id).run.id);
  EXPECT_TRUE(ended.at("currentSession").is_null());
  EXPECT_EQ(member(ended, "lastSession").at("exitCode").as_int64(), 130);
}

TEST_F(CompatDtoTest, SchedulesOnceAndCronAndTheirStates) {
  auto once = init_run(feature_request());
  ASSERT_TRUE(engine_->ready(once.id, actor_));
  auto none = checked(once.id);
  EXPECT_TRUE(none.at("schedule").is_null());
  EXPECT_EQ(none.at("scheduleState").as_string(), "none");

  const auto now = core::now_ms();
  auto spec = core::parse_schedule_request(json::parse(R"({"delay":"30m"})").as_object(), now);
  ASSERT_TRUE(spec);
  ASSERT_TRUE(engine_->schedules().set(once.id, *spec, actor_));
  auto future = checked(once.id);
  ASSERT_TRUE(future.at("schedule").is_object()) << json::serialize(native_detail(once.id).at("schedule"));
  const auto& schedule = member(future, "schedule");
  EXPECT_TRUE(schedule.at("enabled").as_bool());
  EXPECT_TRUE(schedule.at("recurrence").is_null());
  const auto run_at = core::parse_iso8601(std::string(schedule.at("runAt").as_string()));
  ASSERT_TRUE(run_at);
  EXPECT_NEAR(static_cast<double>(*run_at), static_cast<double>(now + 30 * 60 * 1000), 5000.0);
  EXPECT_EQ(future.at("scheduleState").as_string(), "future");
  // The same run seen an hour later: due.
  auto later = facts_;
  later.now_ms = now + 60 * 60 * 1000;
  EXPECT_EQ(ref_schedule_state(native_detail(once.id), later), "due");
  EXPECT_EQ(ref_detail(native_detail(once.id), later).at("scheduleState").as_string(), "due");
  ASSERT_TRUE(engine_->schedules().set_enabled(once.id, false, actor_));
  auto paused = checked(once.id);
  EXPECT_EQ(paused.at("scheduleState").as_string(), "paused");
  EXPECT_FALSE(member(paused, "schedule").at("enabled").as_bool());
  EXPECT_EQ(ref_schedule_state(native_detail(once.id), later), "paused") << "paused wins over due";

  auto cron = init_run(feature_request());
  ASSERT_TRUE(engine_->ready(cron.id, actor_));
  auto cron_spec = core::parse_schedule_request(
      json::parse(R"({"cron":"0 9 * * *","timezone":"Europe/Berlin","mode":"clone","continueOnFailure":true})").as_object(),
      now);
  ASSERT_TRUE(cron_spec);
  ASSERT_TRUE(engine_->schedules().set(cron.id, *cron_spec, actor_));
  auto recurring = checked(cron.id);
  const auto& recurrence = member(member(recurring, "schedule"), "recurrence");
  EXPECT_EQ(member(recurrence, "schedule").at("type").as_string(), "cron");
  EXPECT_EQ(member(recurrence, "schedule").at("expression").as_string(), "0 9 * * *");
  EXPECT_EQ(member(recurrence, "schedule").at("timezone").as_string(), "Europe/Berlin");
  EXPECT_EQ(recurrence.at("mode").as_string(), "clone");
  EXPECT_TRUE(recurrence.at("continueOnFailure").as_bool());
  EXPECT_EQ(member(recurring, "schedule").at("runAt"),
            native_detail(cron.id).at("schedule").as_object().at("nextAt"));
  EXPECT_EQ(recurring.at("scheduleState").as_string(), "future");
}

TEST_F(CompatDtoTest, DependenciesOnARunAndAGroupAndTheirDependents) {
  auto target = start_run(feature_request());
  set_task(target.id, "plan", "completed");
  set_task(target.id, "build", "completed");
  auto group_request = feature_request();
  group_request.run_group_id = "release-1";
  auto member_a = init_run(group_request);
  auto member_b = init_run(group_request);
  ASSERT_TRUE(engine_->archive(member_b.id, actor_));

  auto waiting = init_run(feature_request());
  ASSERT_TRUE(engine_->dependencies().add(waiting.id, core::Dependency{core::DependencyType::run, target.id, ""}, actor_));
  ASSERT_TRUE(
      engine_->dependencies().add(waiting.id, core::Dependency{core::DependencyType::group, "release-1", ""}, actor_));

  const auto ref = checked(waiting.id);
  const auto& deps = ref.at("dependencies").as_array();
  ASSERT_EQ(deps.size(), 2u);
  const bool run_first = deps[0].at("type") == "run";
  const auto& on_run = deps[run_first ? 0 : 1].as_object();
  EXPECT_EQ(on_run.at("type").as_string(), "run");
  EXPECT_EQ(on_run.at("runId").as_string(), target.id);
  EXPECT_EQ(on_run.at("status").as_string(), "success");
  EXPECT_EQ(on_run.at("effectiveStatus").as_string(), "success");
  EXPECT_TRUE(on_run.at("satisfied").as_bool());
  const auto& on_group = deps[run_first ? 1 : 0].as_object();
  EXPECT_EQ(on_group.at("groupId").as_string(), "release-1");
  EXPECT_EQ(on_group.at("total").as_int64(), 1) << "the archived member is left out";
  EXPECT_EQ(on_group.at("successful").as_int64(), 0);
  EXPECT_EQ(on_group.at("unsatisfied").as_int64(), 1);
  EXPECT_EQ(on_group.at("archivedExcluded").as_int64(), 1);
  EXPECT_FALSE(on_group.at("satisfied").as_bool());
  const auto waiting_summary = ref_summary(native_listed(waiting.id), facts_);
  const auto& state = member(waiting_summary, "dependencyState");
  EXPECT_EQ(state, (json::object{{"ready", false}, {"total", 2}, {"satisfied", 1}, {"unsatisfied", 1}}));

  const auto target_ref = checked(target.id);
  const auto& via_run = target_ref.at("dependents").as_array();
  ASSERT_EQ(via_run.size(), 1u);
  EXPECT_EQ(via_run[0].at("via").as_string(), "run");
  EXPECT_EQ(via_run[0].at("runId").as_string(), waiting.id);
  EXPECT_EQ(via_run[0].at("status").as_string(), "initialized");
  EXPECT_FALSE(via_run[0].at("satisfied").as_bool());
  const auto member_ref = checked(member_a.id);
  const auto& via_group = member_ref.at("dependents").as_array();
  ASSERT_EQ(via_group.size(), 1u);
  EXPECT_EQ(via_group[0].at("via").as_string(), "group");
  EXPECT_EQ(via_group[0].at("dependencyGroupId").as_string(), "release-1");

  const auto result = ref_dependencies_result(native_detail(waiting.id), true);
  json::array refs{json::object{{"type", "run"}, {"runId", target.id}},
                   json::object{{"type", "group"}, {"groupId", "release-1"}}};
  if (!run_first) std::swap(refs[0], refs[1]);
  EXPECT_EQ(result.at("dependencies"), refs) << "in the native order";
}

TEST_F(CompatDtoTest, QueuedMessagesIncludingAChildsCompletion) {
  ASSERT_TRUE(engine_->parent_completion().start());  // as `agentry serve` does
  auto parent = start_run(feature_request());  // passive: stays running
  auto queued_first = engine_->queue_message(parent.id, "also check the docs", actor_);
  ASSERT_TRUE(queued_first);
  // runs.queueResumeMessage answers {message, run}; theirs {run, queuedResumeMessage}.
  const auto queue_answer = ref_queue_message_result(
      json::object{{"message", events::queued_message_json(*queued_first)}, {"run", native_detail(parent.id)}}, facts_);
  EXPECT_TRUE(check_queue_message_result(queue_answer).empty()) << describe(check_queue_message_result(queue_answer));
  EXPECT_EQ(queue_answer.at("queuedResumeMessage").at("id").as_string(), queued_first->id);
  engine::InitRequest child;
  child.agent = "talker";
  child.caller_cwd = work_dir_.string();
  child.overrides.message = "go";
  child.parent_run_id = parent.id;
  const auto child_id = start_run(child).id;
  settled(child_id);
  ASSERT_TRUE(eventually([&] { return view_of(parent.id).run.queued_message_count == 2; }));

  const auto ref = checked(parent.id);
  EXPECT_EQ(ref_summary(native_listed(parent.id), facts_).at("queuedResumeMessageCount").as_int64(), 2);
  const auto& queued = ref.at("queuedResumeMessages").as_array();
  ASSERT_EQ(queued.size(), 2u);
  EXPECT_EQ(queued[0].at("text").as_string(), "also check the docs");
  EXPECT_TRUE(queued[0].at("source").is_null());
  const auto& source = queued[1].at("source").as_object();
  EXPECT_EQ(source.at("kind").as_string(), "parent_completion_notification");
  EXPECT_EQ(source.at("childRunId").as_string(), child_id);
  EXPECT_EQ(source.at("notificationId").as_string(), child_id + ":0");
  ASSERT_TRUE(engine_->remove_queued_message(parent.id, queued_first->id, actor_));
  const auto removed = ref_remove_queued_message_result(native_detail(parent.id), queued_first->id, facts_);
  EXPECT_TRUE(check_remove_queued_message_result(removed).empty()) << describe(check_remove_queued_message_result(removed));
  EXPECT_EQ(removed.at("run").at("queuedResumeMessages").as_array().size(), 1u);
  const auto child_ref = checked(child_id);
  EXPECT_EQ(child_ref.at("parentRunId").as_string(), parent.id);
  EXPECT_EQ(child_ref.at("runGroupId"), ref.at("runGroupId"));
}

TEST_F(CompatDtoTest, HooksAttachmentsAndLockedFields) {
  auto run = start_run(hooked_request());
  {
    const auto path = work_dir_ / "notes.md";
    std::ofstream(path) << "# notes\n";
    ASSERT_TRUE(engine_->attachments().add_file(run.id, path, "notes.md", actor_));
  }
  set_task(run.id, "plan", "completed");
  set_task(run.id, "review", "completed");
  ASSERT_TRUE(eventually([&] { return !view_of(run.id).run.hook_audits.empty(); }));
  const auto ref = checked(run.id);
  EXPECT_EQ(ref.at("status").as_string(), "success");

  std::map<std::string, json::object> hooks;
  for (const auto& h : ref.at("resolvedHooks").as_array()) hooks[std::string(h.at("hookId").as_string())] = h.as_object();
  ASSERT_TRUE(hooks.count("after-exit"));
  const auto& after_exit = hooks["after-exit"];
  EXPECT_EQ(after_exit.at("phase").as_string(), "afterExit");
  EXPECT_EQ(member(after_exit, "source"), (json::object{{"builtin", "command"}}));
  EXPECT_EQ(member(after_exit, "config").at("argv"), (json::array{"sh", "-c", "exit 0"}));
  EXPECT_TRUE(after_exit.at("taskScopeId").is_null());
  EXPECT_TRUE(after_exit.at("when").is_null());
  ASSERT_TRUE(hooks.count("before"));
  EXPECT_EQ(member(hooks["before"], "source"), (json::object{{"builtin", "command"}}));
  EXPECT_FALSE(hooks["before"].at("when").is_null());
  bool scoped = false;
  for (const auto& [id, h] : hooks) scoped = scoped || (h.at("taskScopeId").is_string() && h.at("taskScopeId").as_string() == "review");
  EXPECT_TRUE(scoped) << "the review task's own hook is scoped to it";

  const auto& audits = ref.at("hookAudits").as_array();
  ASSERT_FALSE(audits.empty());
  for (const auto& a : audits) {
    const auto started = core::parse_iso8601(std::string(a.at("startedAt").as_string()));
    const auto ended = core::parse_iso8601(std::string(a.at("endedAt").as_string()));
    ASSERT_TRUE(started && ended);
    EXPECT_LE(*started, *ended);
  }
  EXPECT_EQ(ref_summary(native_listed(run.id), facts_).at("hookCount"), native_listed(run.id).at("hookCount"));

  const auto& attachments = ref.at("attachments").as_array();
  ASSERT_EQ(attachments.size(), 1u);
  EXPECT_EQ(attachments[0].at("name").as_string(), "notes.md");
  EXPECT_EQ(attachments[0].at("relativePath").as_string(),
            std::string(attachments[0].at("id").as_string()) + "/notes.md");
  EXPECT_EQ(attachments[0].at("size").as_int64(), 8);
  EXPECT_EQ(ref_summary(native_listed(run.id), facts_).at("attachmentCount").as_int64(), 1);
  EXPECT_EQ(native_listed(run.id).at("attachmentCount").as_int64(), 1) << "W6, native and additive";
  auto gone = engine_->attachments().remove(run.id, std::string(attachments[0].at("id").as_string()), actor_);
  ASSERT_TRUE(gone);
  const auto remove_answer = ref_attachment_remove_result(json::object{{"removed", true}, {"attachment", events::attachment_json(*gone)}});
  EXPECT_TRUE(check_attachment_remove_result(remove_answer).empty()) << describe(check_attachment_remove_result(remove_answer));
  EXPECT_EQ(remove_answer, (json::object{{"runId", run.id}, {"attachmentId", attachments[0].at("id")}, {"changed", true}}));
  EXPECT_EQ(ref_summary(native_listed(run.id), facts_).at("attachmentCount").as_int64(), 0);

  EXPECT_EQ(ref.at("lockedFields"), (json::array{"model", "message"})) << "ours may lock names theirs does not know";
  EXPECT_EQ(ref.at("callerInstructions").as_string(), "Watch the review task.");
  EXPECT_EQ(ref.at("message").as_string(), "Hooked work.");
}

TEST_F(CompatDtoTest, TheRepoIsItsBucketName) {
  const auto repo = work_dir_ / "My-Repo";
  std::filesystem::create_directories(repo);
  ASSERT_EQ(std::system(("git init -q '" + repo.string() + "'").c_str()), 0);
  auto request = feature_request();
  request.caller_cwd = repo.string();
  auto in_repo = init_run(request);
  EXPECT_EQ(checked(in_repo.id).at("repo").as_string(), "my-repo");
  EXPECT_EQ(checked(init_run(feature_request()).id).at("repo").as_string(), "unknown");

  EXPECT_EQ(ref_repo_bucket(json::value("/src/Agentry")), "agentry");
  EXPECT_EQ(ref_repo_bucket(json::value("/src/--Odd-Name/")), "odd-name");
  EXPECT_EQ(ref_repo_bucket(json::value("C:\\work\\Tool")), "tool");
  EXPECT_EQ(ref_repo_bucket(json::value("/")), "unknown");
  EXPECT_EQ(ref_repo_bucket(json::value(nullptr)), "unknown");
}

TEST_F(CompatDtoTest, ResultsCarryTheRunAndTheChangedTheCallerDecided) {
  auto run = init_run(feature_request());
  const auto r0 = native_detail(run.id).at("revision").as_int64();
  ASSERT_TRUE(engine_->set_pinned(run.id, true, actor_));
  ASSERT_TRUE(engine_->set_name(run.id, std::string("Nightly"), actor_));
  ASSERT_TRUE(engine_->set_note(run.id, std::string("keep an eye"), actor_));
  const auto after = native_detail(run.id);
  EXPECT_GT(after.at("revision").as_int64(), r0) << "a change grows the revision: the compat layer's `changed`";
  // Asking for what already is writes nothing: the revision stays, so `changed` is false.
  ASSERT_TRUE(engine_->set_pinned(run.id, true, actor_));
  ASSERT_TRUE(engine_->set_name(run.id, std::string("Nightly"), actor_));
  EXPECT_EQ(native_detail(run.id).at("revision"), after.at("revision"));

  const auto pinned = ref_pinned_result(after, true);
  EXPECT_EQ(pinned, (json::object{{"runId", run.id}, {"updatedAt", after.at("updatedAt")}, {"pinned", true}, {"changed", true}}));
  EXPECT_EQ(ref_name_result(after, false).at("name").as_string(), "Nightly");
  EXPECT_FALSE(ref_name_result(after, false).at("changed").as_bool());
  EXPECT_EQ(ref_note_result(after, true).at("note").as_string(), "keep an eye");
  EXPECT_TRUE(ref_backend_session_result(after, false).at("backendSessionId").is_null());
  const auto group = ref_group_result(after, "old-group", true);
  EXPECT_EQ(group.at("previousRunGroupId").as_string(), "old-group");
  EXPECT_EQ(group.at("runGroupId"), after.at("runGroupId"));
  const auto archive = ref_archive_result(after, false);
  EXPECT_EQ(archive.at("status").as_string(), "initialized");
  EXPECT_TRUE(archive.at("archivedAt").is_null());
  EXPECT_TRUE(check_archive_result(archive).empty());

  const auto summary = ref_summary(native_listed(run.id), facts_);
  EXPECT_TRUE(summary.at("notePresent").as_bool());
  EXPECT_TRUE(summary.at("pinned").as_bool());
  EXPECT_EQ(summary.at("name").as_string(), "Nightly");
}

}  // namespace
}  // namespace agentry::api::compat::testing
