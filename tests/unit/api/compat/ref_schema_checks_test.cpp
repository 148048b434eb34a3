// The checkers themselves: they must refuse what agent-runner's clients refuse, or the
// translation tests prove nothing.

#include "ref_schema_checks.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace agentry::api::compat::testing {
namespace {
namespace json = boost::json;

json::object capabilities() {
  return json::parse(R"({"canArchive":true,"canUnarchive":false,"canReset":true,"canDelete":false,"canReady":false,
    "canResume":true,"canAbort":false,"abortReason":"already_terminal","canReconfigure":false,
    "reconfigureReason":"not_initialized","taskMutation":{"canSetStatus":true,"canEditNotes":true,"canAdd":true,
    "canEditPending":true,"canDeletePending":true}})")
      .as_object();
}

bool mentions(const Problems& problems, const std::string& text) {
  for (const auto& p : problems)
    if (p.find(text) != std::string::npos) return true;
  return false;
}

TEST(RefSchemaChecks, CapabilitiesReasonsAreAbsentNotNullWhenAllowed) {
  EXPECT_TRUE(check_capabilities(capabilities()).empty()) << describe(check_capabilities(capabilities()));
  auto null_reason = capabilities();
  null_reason["canAbort"] = true;
  null_reason["abortReason"] = nullptr;
  EXPECT_TRUE(mentions(check_capabilities(null_reason), ".abortReason")) << describe(check_capabilities(null_reason));
  auto missing_reason = capabilities();
  missing_reason.erase("abortReason");
  EXPECT_FALSE(check_capabilities(missing_reason).empty());
  auto other_reason = capabilities();
  other_reason["reconfigureReason"] = "run is archived; unarchive it first";
  EXPECT_TRUE(mentions(check_capabilities(other_reason), "expected one of archived|not_initialized"));
  auto ours = capabilities();
  ours["taskMutation"].as_object()["canSetNotes"] = true;
  EXPECT_TRUE(mentions(check_capabilities(ours), "member not in the schema"));
}

TEST(RefSchemaChecks, MembersTypesNullabilityAndEnums) {
  const auto task = json::parse(R"({"id":"a","title":"t","body":"","status":"pending","notes":""})");
  EXPECT_TRUE(check_task(task).empty());
  auto absent = task.as_object();
  absent.erase("notes");
  EXPECT_TRUE(mentions(check_task(absent), "required member is absent"));
  auto wrong = task.as_object();
  wrong["status"] = "done";
  EXPECT_FALSE(check_task(wrong).empty());
  auto null_title = task.as_object();
  null_title["title"] = nullptr;
  EXPECT_TRUE(mentions(check_task(null_title), "expected a string"));
  EXPECT_TRUE(check_schedule(nullptr).empty()) << "RunSchedule | null";
  EXPECT_FALSE(check_schedule(json::parse(R"({"enabled":true,"runAt":null,"recurrence":null})")).empty());
  EXPECT_FALSE(check_schedule_state("scheduled").empty());
}

TEST(RefSchemaChecks, StrictObjectsAndUnions) {
  auto detail_assignment = json::parse(R"({"kind":"task","task":{"id":"x","title":"T","body":"",
    "hooks":[{"builtin":"command","when":{"to":["completed"]}}]},"sourcePath":"/t.md"})");
  EXPECT_TRUE(mentions(check_definition_detail(detail_assignment), "member not in the schema"))
      << "a hook `when` is strict: our keys are refused";
  EXPECT_FALSE(check_definition_detail(json::parse(R"({"kind":"task","task":{"id":"x","title":"T",
    "hooks":[{"builtin":"command","name":"x"}]},"sourcePath":"/t.md"})"))
                   .empty())
      << "exactly one of builtin, name, path";
  EXPECT_FALSE(check_dependency(json::parse(R"({"type":"team","groupId":"g"})")).empty());
  EXPECT_FALSE(check_execution(json::parse(R"({"hostMode":"embedded","controller":{"kind":"daemon","daemonInstanceId":"d"}})"))
                   .empty())
      << "hostMode must match the controller";
  EXPECT_FALSE(check_audit_envelope(json::parse(R"({"runId":"r","cursor":0,"event":{"type":"x","recordedAt":"t",
    "source":"system","hostMode":"daemon","fields":{}}})"))
                   .empty())
      << "cursors are positive";
  EXPECT_FALSE(check_audit_event(json::parse(R"({"type":"x","recordedAt":"t","source":"api","hostMode":"daemon","fields":{}})"))
                   .empty())
      << "source is their strict enum";
}

TEST(RefSchemaChecks, TheTimelineShapes) {
  const auto attempt = json::parse(R"({"attemptNumber":1,"sessionIndex":0,"attemptIndexInSession":0,
    "startedAt":"2026-01-01T00:00:00.000Z","endedAt":null,"prompt":"go","transcript":"","notices":"",
    "exitCode":null,"timedOut":false,"live":true,"provenance":{"kind":"task_runner"}})");
  EXPECT_TRUE(check_timeline_attempt(attempt).empty()) << describe(check_timeline_attempt(attempt));
  auto zero = attempt.as_object();
  zero["attemptNumber"] = 0;
  EXPECT_FALSE(check_timeline_attempt(zero).empty()) << "attempt numbers are positive";
  auto synced = attempt.as_object();
  synced["provenance"] = json::object{{"kind", "backend_session"}, {"mode", "replay"}};
  EXPECT_FALSE(check_timeline_attempt(synced).empty());
  EXPECT_TRUE(check_timeline_history(json::object{{"runId", "r"}, {"attempts", json::array{attempt}}, {"lastCursor", 0}}).empty());
  EXPECT_FALSE(check_timeline_history(json::object{{"runId", "r"}, {"attempts", json::array{}}, {"lastCursor", -1}}).empty());
  EXPECT_TRUE(check_timeline_envelope(json::parse(R"({"runId":"r","cursor":1,"event":{"type":"agent_message_delta","text":"hi"}})"))
                  .empty())
      << "events are open: members beyond type pass";
  EXPECT_FALSE(check_timeline_envelope(json::parse(R"({"runId":"r","cursor":1,"event":{"kind":"message.delta"}})")).empty());
}

TEST(RefSchemaChecks, InputSurfaceAppConfigAndSmallResults) {
  const auto field = json::parse(R"({"key":"model","label":"Model","description":"","section":"execution",
    "inputKind":"model","valueStatus":"concrete","value":"small","editable":false,"locked":true,
    "hiddenWhenUnset":false,"source":"agent"})");
  EXPECT_TRUE(check_input_surface(json::object{{"runSettings", json::array{field}}, {"assignmentInputs", json::array{}}}).empty());
  auto other = field.as_object();
  other["section"] = "advanced";
  EXPECT_FALSE(check_input_surface(json::object{{"runSettings", json::array{other}}, {"assignmentInputs", json::array{}}}).empty());
  EXPECT_TRUE(check_app_config(json::parse(R"({"webBasePath":"/"})")).empty());
  EXPECT_TRUE(check_app_config(json::parse(R"({"webBasePath":"/agent-runner/v2"})")).empty());
  EXPECT_FALSE(check_app_config(json::parse(R"({"webBasePath":"/a_b"})")).empty());
  EXPECT_FALSE(check_app_config(json::parse(R"({"webBasePath":"/","apiBasePath":"/api"})")).empty()) << "strict";
  EXPECT_TRUE(check_delete_result(json::parse(R"({"runId":"r"})")).empty());
  EXPECT_FALSE(check_delete_result(json::parse(R"({"runId":"r","deleted":true})")).empty())
      << "ours adds deleted: harmless to their non-strict schema, but not their member set";
  EXPECT_TRUE(check_task_delete_result(json::parse(R"({"runId":"r","taskId":"t","deleted":true,"updatedAt":"x"})")).empty());
  EXPECT_FALSE(check_task_delete_result(json::parse(R"({"runId":"r","taskId":"t","deleted":false,"updatedAt":"x"})")).empty());
  EXPECT_FALSE(check_summary_stream_event(json::parse(R"({"type":"run_removed","runId":"r"})")).empty());
  EXPECT_TRUE(check_summary_stream_event(json::parse(R"({"type":"summary_removed","runId":"r"})")).empty());
}

}  // namespace
}  // namespace agentry::api::compat::testing
