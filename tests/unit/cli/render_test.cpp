#include "cli/render.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace agentry::cli {
namespace {
namespace json = boost::json;

json::object parse(const char* text) { return json::parse(text).as_object(); }

TEST(RenderTest, TimesAndDurations) {
  EXPECT_EQ(short_time("2026-04-18T10:35:00.123Z"), "2026-04-18 10:35:00");
  EXPECT_EQ(short_time("soon"), "soon");
  EXPECT_EQ(clock_time("2026-04-18T10:35:07.000Z"), "10:35:07");
  EXPECT_EQ(clock_time(""), "");
  EXPECT_EQ(duration_text(800), "0s");
  EXPECT_EQ(duration_text(95'000), "1m35s");
  EXPECT_EQ(duration_text(3'600'000), "1h00m");
}

TEST(RenderTest, TextAtPrintsScalarsAndHidesNull) {
  auto v = json::value(parse(R"({"s":"x","n":3,"b":true,"z":null})"));
  EXPECT_EQ(text_at(v, "s"), "x");
  EXPECT_EQ(text_at(v, "n"), "3");
  EXPECT_EQ(text_at(v, "b"), "true");
  EXPECT_EQ(text_at(v, "z", "-"), "-");
  EXPECT_EQ(text_at(v, "missing"), "");
}

TEST(RenderTest, RunListIsATableWithTaskCountsAndArchivedMarked) {
  auto list = parse(R"({"runs":[
      {"runId":"r1","status":"running","agent":"coder","assignment":"feature","name":"Dark mode",
       "taskCounts":{"total":3,"completed":1,"blocked":0},"createdAt":"2026-04-18T10:35:00.000Z","archived":false},
      {"runId":"r2","status":"success","agent":"planner","assignment":null,"name":null,
       "taskCounts":{"total":0,"completed":0,"blocked":0},"createdAt":"2026-04-18T09:00:00.000Z","archived":true}],
      "nextCursor":"c1"})");
  EXPECT_EQ(render_run_list(list),
            "RUN  STATUS              AGENT    ASSIGNMENT  NAME       TASKS  CREATED\n"
            "r1   running             coder    feature     Dark mode  1/3    2026-04-18 10:35:00\n"
            "r2   success (archived)  planner  -                      -      2026-04-18 09:00:00\n"
            "(more runs: raise --limit, or pass --cursor c1)\n");
  EXPECT_EQ(render_run_list(parse(R"({"runs":[],"nextCursor":null})")), "no runs\n");
}

TEST(RenderTest, RunDetailShowsStatusTasksAndSessions) {
  auto run = parse(R"({"runId":"r1","name":null,"status":"blocked","statusReason":"a task is blocked",
      "agent":"planner","backend":"passive","model":"small","assignment":"feature","cwd":"/w","runGroupId":"r1",
      "parentRunId":null,"createdAt":"2026-04-18T10:35:00.000Z","totalSessionCount":1,"totalAttemptCount":0,
      "maxAttemptsPerSession":3,"message":"Build it.\nCarefully.",
      "tasks":[{"id":"plan","status":"blocked","title":"Plan","notes":"stuck"}],
      "sessions":[{"index":0,"status":"blocked","startedAt":"2026-04-18T10:35:00.000Z","endedAt":null,
                   "endReason":"a task is blocked","attempts":[]}]})");
  auto text = render_run_detail(run);
  EXPECT_NE(text.find("status      blocked: a task is blocked\n"), std::string::npos) << text;
  EXPECT_NE(text.find("agent       planner (passive, model small)\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("group"), std::string::npos) << "a run in its own group shows no group";
  EXPECT_NE(text.find("message\n  Build it.\n  Carefully.\n"), std::string::npos) << text;
  EXPECT_NE(text.find("plan  blocked  Plan   stuck"), std::string::npos) << text;
  EXPECT_NE(text.find("SESSION  STATUS"), std::string::npos) << text;
}

TEST(RenderTest, RunDetailNamesTheMemberThatDrivesIt) {
  auto running = parse(R"({"runId":"r1","status":"running","agent":"coder","backend":"mock","cwd":"/w",
      "runGroupId":"r1","createdAt":"2026-04-18T10:35:00.000Z","owner":{"daemonId":"daemon-9-x-1","name":"build-2",
      "epoch":3,"leaseExpiresAt":"2026-04-18T10:36:07.000Z"}})");
  auto text = render_run_detail(running);
  EXPECT_NE(text.find("driven by   build-2 (lease epoch 3, until 2026-04-18 10:36:07)\n"), std::string::npos) << text;
  auto ended = parse(R"({"runId":"r1","status":"success","agent":"coder","backend":"mock","cwd":"/w",
      "runGroupId":"r1","createdAt":"2026-04-18T10:35:00.000Z","owner":null})");
  EXPECT_EQ(render_run_detail(ended).find("driven by"), std::string::npos);
}

TEST(RenderTest, TasksAuditBackendsAndDefinitions) {
  EXPECT_EQ(render_tasks(json::array{}), "no tasks\n");
  auto task = parse(R"({"id":"plan","runId":"r1","status":"completed","title":"Plan","notes":"a\nb","body":""})");
  auto text = render_task(task);
  EXPECT_NE(text.find("status      completed\n"), std::string::npos) << text;
  EXPECT_NE(text.find("notes\n  a\n  b\n"), std::string::npos) << text;

  auto audit = json::parse(R"([{"cursor":1,"at":"2026-04-18T10:35:00.000Z","type":"run.started","actor":"cli",
      "data":{"sessionIndex":0}}])").as_array();
  EXPECT_EQ(render_audit(audit),
            "CURSOR  AT                   TYPE         ACTOR  DATA\n"
            "1       2026-04-18 10:35:00  run.started  cli    {\"sessionIndex\":0}\n");

  auto backends = parse(R"({"backends":[{"id":"mock","version":"0.1.0","features":["resume","interrupt"],
      "description":"Scripted"}],"loadErrors":[{"path":"/x/bad.so","message":"no entry symbol"}]})");
  EXPECT_EQ(render_backends(backends),
            "BACKEND  VERSION  FEATURES          DESCRIPTION\n"
            "mock     0.1.0    resume,interrupt  Scripted\n"
            "\nlibraries that did not load:\n  /x/bad.so: no entry symbol\n");

  auto list = parse(R"({"kind":"agent","entries":[{"name":"coder","description":"Codes","sourcePath":"/c/coder.md"}],
      "warnings":[{"path":"/c/x.md","field":"model","message":"unknown key"}]})");
  EXPECT_EQ(render_definition_list(list),
            "NAME   DESCRIPTION  SOURCE\n"
            "coder  Codes        /c/coder.md\n"
            "  warning: /c/x.md (model): unknown key\n");
  auto detail = parse(R"({"kind":"agent","agent":{"name":"coder","backend":"mock","model":null,"instructions":"Do it."},
      "sourcePath":"/c/coder.md","warnings":[]})");
  EXPECT_EQ(render_definition_detail(detail),
            "name          coder\nbackend       mock\ninstructions\n  Do it.\nsource        /c/coder.md\n");
}

TEST(RenderTest, RunStatusIsOneLine) {
  EXPECT_EQ(render_run_status(parse(R"({"runId":"r1","status":"initialized","archived":false,
      "taskCounts":{"total":0},"totalAttemptCount":0,"totalSessionCount":0,"currentSession":null})")),
            "r1 initialized · no tasks · 0 attempts, 0 sessions\n");
  EXPECT_EQ(render_run_status(parse(R"({"runId":"r1","status":"running","statusReason":null,
      "taskCounts":{"total":3,"pending":0,"inProgress":1,"completed":1,"blocked":1},
      "activeTask":{"id":"build","title":"Build"},"totalAttemptCount":2,"totalSessionCount":1,
      "currentSession":{"index":0,"startedAt":"2026-04-18T10:35:02.000Z"},
      "pendingApprovals":[{"approvalId":"a1"}],"queuedMessageCount":2})")),
            "r1 running · tasks 1/3 completed (1 in progress, 1 blocked) · 2 attempts, 1 session · "
            "session 0 live since 2026-04-18 10:35:02 · on task build · 1 approval waiting (agentry show r1) · "
            "2 queued messages\n");
  EXPECT_EQ(render_run_status(parse(R"({"runId":"r1","status":"success","statusReason":"all tasks completed",
      "archived":true,"taskCounts":{"total":1,"completed":1},"totalAttemptCount":1,"totalSessionCount":1,
      "currentSession":null,"finishedAt":"2026-04-18T10:36:00.000Z"})")),
            "r1 success (archived): all tasks completed · tasks 1/1 completed · 1 attempt, 1 session · "
            "finished 2026-04-18 10:36:00\n");
}

}  // namespace
}  // namespace agentry::cli
