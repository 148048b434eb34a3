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

}  // namespace
}  // namespace agentry::api::compat::testing
