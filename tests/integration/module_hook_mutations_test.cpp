// Module hooks (run by the real node) changing what agent-runner's results may change:
// the run's attachments through `mutate.attachments` {add, remove, replace}, and task
// transitions from the sources `task-append-notes` and `task-add` (judged, filtered by
// `when.source`, rolled back on a rejection that keeps the hook's own state).
#include "module_hook_fixture.hpp"

#include <cstdlib>
#include <string>

namespace agentry::integration {
namespace {
namespace json = boost::json;

class ModuleHookMutations : public ModuleHookTest {
 protected:
  std::vector<std::string> audit_types(const std::string& run) {
    std::vector<std::string> types;
    const auto audit = client().get("/api/runs/" + run + "/audit").json();  // kept: the loop reads inside it
    for (const auto& e : audit.at("events").as_array()) types.emplace_back(e.at("type").as_string());
    return types;
  }
  static bool contains(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  }
};

TEST_F(ModuleHookMutations, AttachmentsAreAddedThenRemovedAndReplacedInPlace) {
  write_module("files", R"JS(
import { writeFileSync } from "node:fs";
export default {
  name: "files",
  beforeAttempt() {
    writeFileSync("a.txt", "first a\n");
    writeFileSync("b.txt", "first b\n");
    return { action: "continue", mutate: { attachments: {
      add: [{ sourcePath: "a.txt" }, { sourcePath: "b.txt", name: "bee.txt", mimeType: "text/plain" }] } } };
  },
  afterAttempt(ctx) {
    const a = ctx.attachments.find((x) => x.name === "a.txt");
    const b = ctx.attachments.find((x) => x.name === "bee.txt");
    writeFileSync("b2.md", "second b\n");
    return { action: "continue", mutate: { attachments: {
      remove: [a.id, "att-missing"],
      replace: [{ attachmentId: b.id, sourcePath: "b2.md", name: "bee.md", mimeType: "text/markdown" }] } } };
  },
};
)JS");
  write_assignment("files", "hooks:\n  beforeAttempt: [{name: files}]\n  afterAttempt: [{name: files}]\n");
  auto run = start_assignment_run("scripted", "files", "@mock {\"say\": \"done\"}");
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(wait_until_settled(run), "success");
  auto added = wait_for_hook_audits(run, "beforeAttempt").at(0).as_object();
  EXPECT_EQ(added.at("outcome").as_string(), "ok");
  EXPECT_NE(std::string(added.at("message").as_string()).find("added 2 of 2"), std::string::npos)
      << json::serialize(added);
  auto changed = wait_for_hook_audits(run, "afterAttempt").at(0).as_object();
  const std::string said(changed.at("message").as_string());
  EXPECT_NE(said.find("removed 1 of 2 (att-missing: "), std::string::npos) << said;
  EXPECT_NE(said.find("replaced 1 of 1"), std::string::npos) << said;

  auto listed = client().get("/api/runs/" + run + "/attachments").json().at("attachments").as_array();
  ASSERT_EQ(listed.size(), 1u) << json::serialize(listed);
  const auto& kept = listed.at(0).as_object();
  EXPECT_EQ(kept.at("name").as_string(), "bee.md");
  EXPECT_EQ(kept.at("contentType").as_string(), "text/markdown");
  const std::string id(kept.at("attachmentId").as_string());
  auto content = client().get("/api/runs/" + run + "/attachments/" + id + "/content");
  EXPECT_EQ(content.body, "second b\n");
  const auto types = audit_types(run);
  for (const char* type : {"attachment.added", "attachment.removed", "attachment.replaced"})
    EXPECT_TRUE(contains(types, type)) << type;
}

TEST_F(ModuleHookMutations, AppendedNotesAndAddedTasksAreJudgedAndARejectionKeepsTheHooksState) {
  write_module("sources", R"JS(
export default {
  name: "sources",
  taskTransition(ctx) {
    const t = ctx.transition;
    const state = { seen: (ctx.state.seen ?? 0) + 1, last: t };
    const text = t.source === "task-add" ? t.to.title : t.to.notes;
    if (text.includes("forbidden")) return { accept: false, reason: `no forbidden ${t.source}`, mutate: { state } };
    return { accept: true, mutate: { state } };
  },
};
)JS");
  write_assignment("sources", "tasks:\n  - {id: plan, title: Plan}\n"
                              "hooks:\n  taskTransition:\n"
                              "    - {name: sources, when: {source: [task-append-notes, task-add]}}\n");
  auto run = start_assignment_run("worker", "sources", "go");
  ASSERT_FALSE(run.empty());
  const std::string tasks = "/api/runs/" + run + "/tasks";
  auto state = [&] { return get_run(run).at("hookData").as_object(); };

  auto appended = client().post_json(tasks + "/plan/append-notes", json::object{{"text", "fine"}});
  ASSERT_EQ(appended.status, 200) << appended.body;
  auto seen = state();
  EXPECT_EQ(seen.at("seen").as_int64(), 1);
  EXPECT_EQ(seen.at("last"), json::parse(R"({"taskId": "plan", "source": "task-append-notes",
      "from": {"status": "pending", "notes": ""},
      "to": {"status": "pending", "notes": "fine", "title": "Plan", "body": ""},
      "tentative": true, "changedFields": ["notes"]})"))
      << json::serialize(seen);

  auto refused = client().post_json(tasks + "/plan/append-notes", json::object{{"text", "forbidden words"}});
  EXPECT_EQ(error_code_of(refused), "CONFLICT") << refused.body;
  EXPECT_EQ(refused.json().at("error").at("details").at("reason").as_string(), "hook_refused");
  EXPECT_NE(refused.body.find("no forbidden task-append-notes"), std::string::npos) << refused.body;
  EXPECT_EQ(client().get(tasks + "/plan").json().at("task").at("notes").as_string(), "fine") << "rolled back";
  EXPECT_EQ(state().at("seen").as_int64(), 2) << "the rejecting hook's state is kept";

  auto extra = client().post_json(tasks, json::object{{"title", "Extra"}, {"body", "more"}});
  ASSERT_EQ(extra.status, 201) << extra.body;
  seen = state();
  EXPECT_EQ(seen.at("seen").as_int64(), 3);
  EXPECT_EQ(seen.at("last").at("source").as_string(), "task-add");
  EXPECT_TRUE(seen.at("last").at("from").is_null());
  EXPECT_EQ(seen.at("last").at("to").at("title").as_string(), "Extra");
  EXPECT_EQ(seen.at("last").at("taskId"), extra.json().at("task").at("id")) << json::serialize(seen);
  EXPECT_EQ(seen.at("last").at("changedFields"), json::parse(R"(["title", "body"])"));

  auto not_added = client().post_json(tasks, json::object{{"title", "forbidden extra"}});
  EXPECT_EQ(error_code_of(not_added), "CONFLICT") << not_added.body;
  EXPECT_NE(not_added.body.find("no forbidden task-add"), std::string::npos) << not_added.body;
  EXPECT_EQ(client().get(tasks).json().at("tasks").as_array().size(), 2u) << "nothing was added";
  EXPECT_EQ(state().at("seen").as_int64(), 4);

  // `when.source` leaves a status change (task-set) to other hooks.
  ASSERT_EQ(client().patch_json(tasks + "/plan", json::object{{"status", "completed"}}).status, 200);
  EXPECT_EQ(state().at("seen").as_int64(), 4);
  EXPECT_TRUE(contains(audit_types(run), "task.transition_refused"));
}

}  // namespace
}  // namespace agentry::integration
