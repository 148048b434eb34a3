#include "compat_fixture.hpp"

#include "core/clock.hpp"
#include "events/projections.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace agentry::api::compat::testing {
namespace json = boost::json;

void CompatDtoTest::SetUp() {
  LiveRunTest::SetUp();
  facts_.daemon_instance_id = "daemon-compat-test";
  facts_.now_ms = core::now_ms();
  facts_.workspace_root = root_ / "home" / "compat" / "runs";
  write_config("tasks/review.md", R"(---
schemaVersion: 1
title: Review the change
hooks:
  - {id: review-gate, phase: taskTransition, run: [sh, -c, "exit 0"], when: {to: [completed]}}
---
Read the diff.
)");
  write_config("assignments/hooked/assignment.md", R"(---
schemaVersion: 1
message: Hooked work.
lockedFields: [message, notify]
callerInstructions: Watch the review task.
hooks:
  - {id: after-exit, phase: afterExit, run: [sh, -c, "exit 0"]}
  - {id: before, phase: beforeAttempt, builtin: command, with: {argv: [sh, -c, "exit 0"]}, when: {session: ["0"]}}
tasks:
  - id: plan
    title: Plan it
  - review
---
Hooked.
)");
}

engine::InitRequest CompatDtoTest::hooked_request() {
  engine::InitRequest r;
  r.agent = "worker";
  r.assignment = "hooked";
  r.caller_cwd = work_dir_.string();
  return r;
}

json::object CompatDtoTest::native_detail(const std::string& run_id) {
  auto v = view_of(run_id);
  return events::run_detail({v.run, v.tasks, v.sessions, v.attempts});
}

json::object CompatDtoTest::native_listed(const std::string& run_id) {
  core::RunQuery q;
  q.include_archived = true;
  q.limit = 1000;
  auto page = engine_->list(q);
  EXPECT_TRUE(page.ok());
  if (page.ok())
    for (const auto& s : page->summaries)
      if (s.at("runId").as_string() == run_id) return s;
  ADD_FAILURE() << "run " << run_id << " is not listed";
  return {};
}

json::object CompatDtoTest::checked(const std::string& run_id) {
  // A live run may move between the two reads (an attempt starting stamps updatedAt):
  // compare a list and a view taken while the run stood still.
  auto listed = native_listed(run_id);
  auto detail = native_detail(run_id);
  for (int tries = 0; tries < 100; ++tries) {
    auto again = native_listed(run_id);
    if (again == listed) break;
    listed = std::move(again);
    detail = native_detail(run_id);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  const auto from_list = ref_summary(listed, facts_);
  EXPECT_TRUE(check_run_summary(from_list).empty()) << run_id << " (listed)\n" << describe(check_run_summary(from_list));
  const auto from_detail = ref_summary(detail, facts_);
  EXPECT_TRUE(check_run_summary(from_detail).empty()) << run_id << " (detail)\n"
                                                      << describe(check_run_summary(from_detail));
  // The list path (store counts, W6/W8) and the view path tell the same run.
  for (const auto& [key, value] : from_list) {
    if (key == "currentSession" || key == "lastSession") {
      EXPECT_EQ(value.is_null(), from_detail.at(key).is_null()) << key;
      if (value.is_null()) continue;
      auto a = value.as_object();
      auto b = from_detail.at(key).as_object();
      a.erase("message");  // the list leaves prompts out
      b.erase("message");
      EXPECT_EQ(a, b) << run_id << " " << key;
      continue;
    }
    EXPECT_EQ(value, from_detail.at(key)) << run_id << " " << key;
  }

  const auto ref = ref_detail(detail, facts_);
  EXPECT_TRUE(check_run_detail(ref).empty()) << run_id << "\n" << describe(check_run_detail(ref));
  // As the streams carry them.
  EXPECT_TRUE(check_summary_stream_event(json::object{{"type", "summary_upsert"}, {"summary", from_list}}).empty());
  EXPECT_TRUE(check_detail_stream_event(json::object{{"type", "detail_updated"}, {"detail", ref}}).empty());

  for (const auto& a : detail.at("attachments").as_array()) {
    const auto entry = ref_attachment_entry(a.as_object());
    EXPECT_TRUE(check_attachment_entry(entry).empty()) << describe(check_attachment_entry(entry));
    EXPECT_EQ(entry.at("ownerRunId"), detail.at("runId"));
  }
  for (const auto& t : detail.at("tasks").as_array())
    EXPECT_TRUE(check_task(ref_task(t.as_object())).empty());

  for (bool changed : {true, false}) {
    EXPECT_TRUE(check_archive_result(ref_archive_result(detail, changed)).empty());
    EXPECT_TRUE(check_name_result(ref_name_result(detail, changed)).empty());
    EXPECT_TRUE(check_note_result(ref_note_result(detail, changed)).empty());
    EXPECT_TRUE(check_pinned_result(ref_pinned_result(detail, changed)).empty());
    EXPECT_TRUE(check_backend_session_result(ref_backend_session_result(detail, changed)).empty());
    EXPECT_TRUE(check_group_result(ref_group_result(detail, "previous-group", changed)).empty());
    EXPECT_TRUE(check_dependencies_result(ref_dependencies_result(detail, changed)).empty())
        << describe(check_dependencies_result(ref_dependencies_result(detail, changed)));
    EXPECT_EQ(ref_pinned_result(detail, changed).at("changed").as_bool(), changed);
  }

  json::array records;
  for (const auto& e : audit_of(run_id)) records.push_back(events::audit_event_json(e));
  EXPECT_FALSE(records.empty());
  for (const auto& r : records) {
    const auto envelope = ref_audit_envelope(r.as_object(), facts_);
    EXPECT_TRUE(check_audit_envelope(envelope).empty()) << describe(check_audit_envelope(envelope));
  }
  const auto history = ref_audit_history(json::object{{"events", records}}, run_id, facts_);
  EXPECT_TRUE(check_audit_history(history).empty()) << describe(check_audit_history(history));
  EXPECT_EQ(history.at("lastCursor").as_int64(), records.back().at("cursor").as_int64());
  return ref;
}

}  // namespace agentry::api::compat::testing
