// The readers of agent-runner's files (manifest_reader, events_reader, attachments_reader)
// on good and malformed input: every refusal names the file and the field.
#include "store_import/agent_runner/manifest_reader.hpp"

#include "store_import/agent_runner/attachments_reader.hpp"
#include "store_import/agent_runner/events_reader.hpp"
#include "support/agent_runner_state.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace agentry::store_import::agent_runner {
namespace {
namespace json = boost::json;
namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string field_of(const core::Error& e) { return std::string(e.details.at("field").as_string()); }

core::Result<Manifest> parse(const json::object& manifest) {
  return parse_manifest(json::serialize(manifest), "/state/runs/repo/r1/run.json");
}

json::object good() { return test::agent_runner_manifest("r1", "success", "/work"); }

TEST(AgentRunnerManifestReader, ReadsAGoodManifestWithTasksInKeyOrder) {
  auto m = good();
  m["finalTasks"] = json::object{
      {"zz", {{"id", "zz"}, {"title", "Z"}, {"body", ""}, {"status", "completed"}, {"notes", "n"}}},
      {"aa", {{"id", "aa"}, {"title", "A"}, {"body", "b"}, {"status", "pending"}, {"notes", ""}}}};
  m["launcher"] = json::object{{"kind", "prefix"}, {"command", "nice"}, {"args", {"-n", "5"}}, {"name", nullptr}, {"source", "inline"}};
  auto read = parse(m);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->supported());
  EXPECT_EQ(read->run_id, "r1");
  ASSERT_EQ(read->final_tasks.size(), 2u);
  EXPECT_EQ(read->final_tasks[0].id, "zz");
  EXPECT_EQ(read->final_tasks[1].id, "aa");
  EXPECT_EQ(read->launcher.command, "nice");
  EXPECT_EQ(read->launcher.args, (std::vector<std::string>{"-n", "5"}));
}

TEST(AgentRunnerManifestReader, WhatAgentRunnerItselfMayLeaveOutIsOptional) {
  auto m = good();
  for (const char* key : {"runtimeVarSources", "model", "effort", "message", "endedAt", "backendConfig",
                          "backendSessionId", "callerInstructions", "executionEnvironment", "backendSessionSync"})
    m.erase(key);
  auto read = parse(m);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->runtime_var_sources.empty());
  EXPECT_FALSE(read->model.has_value());
  EXPECT_TRUE(read->backend_config.is_null());
}

TEST(AgentRunnerManifestReader, AnotherSchemaVersionIsReadNoFurther) {
  auto read = parse(json::object{{"schemaVersion", 24}, {"runId", "old"}});
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->supported());
  EXPECT_EQ(read->schema_version, 24);
  EXPECT_EQ(read->run_id, "old");
}

TEST(AgentRunnerManifestReader, RefusesTextThatIsNotJson) {
  auto read = parse_manifest("{\"schemaVersion\": 25,", "/s/run.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, core::ErrorCode::validation);
  EXPECT_TRUE(contains(read.error().message, "/s/run.json: is not JSON")) << read.error().message;
}

TEST(AgentRunnerManifestReader, NamesAMissingField) {
  auto m = good();
  m.erase("backend");
  auto read = parse(m);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().message, "/state/runs/repo/r1/run.json: backend is missing");
  EXPECT_EQ(field_of(read.error()), "backend");
  EXPECT_EQ(std::string(read.error().details.at("file").as_string()), "/state/runs/repo/r1/run.json");
}

TEST(AgentRunnerManifestReader, NamesANestedFieldOfTheWrongType) {
  auto m = good();
  json::object session{{"sessionIndex", 0}, {"startedAt", "t"}, {"endedAt", nullptr}, {"status", "success"},
                       {"message", nullptr}, {"backendSessionIdAtEnd", nullptr}};
  json::object broken = session;
  broken["startedAt"] = 7;
  m["sessions"] = json::array{session, broken};
  auto read = parse(m);
  ASSERT_FALSE(read);
  EXPECT_EQ(field_of(read.error()), "sessions[1].startedAt");
  EXPECT_TRUE(contains(read.error().message, "sessions[1].startedAt must be a string")) << read.error().message;

  m = good();
  m["agent"].as_object()["instructions"] = nullptr;
  read = parse(m);
  ASSERT_FALSE(read);
  EXPECT_EQ(field_of(read.error()), "agent.instructions");
}

TEST(AgentRunnerManifestReader, RefusesBadValuesNamingThem) {
  auto m = good();
  m["launcher"] = json::object{{"kind", "sideways"}};
  auto read = parse(m);
  ASSERT_FALSE(read);
  EXPECT_EQ(field_of(read.error()), "launcher.kind");

  m = good();
  m["finalTasks"] = json::object{{"a", {{"id", "b"}, {"title", ""}, {"body", ""}, {"status", "pending"}, {"notes", ""}}}};
  read = parse(m);
  ASSERT_FALSE(read);
  EXPECT_EQ(field_of(read.error()), "finalTasks.a.id");

  m = good();
  m["dependencies"] = json::array{json::object{{"type", "task"}, {"taskId", "x"}}};
  read = parse(m);
  ASSERT_FALSE(read);
  EXPECT_EQ(field_of(read.error()), "dependencies[0].type");

  m = good();
  m["timeoutSec"] = 600.5;
  read = parse(m);
  ASSERT_FALSE(read);
  EXPECT_TRUE(contains(read.error().message, "timeoutSec must be an integer")) << read.error().message;

  m = good();
  m["timeoutSec"] = 600.0;  // JavaScript's numbers are doubles; a whole one is an integer
  ASSERT_TRUE(parse(m));

  m = good();
  m["timeoutSec"] = -1;
  read = parse(m);
  ASSERT_FALSE(read);
  EXPECT_EQ(field_of(read.error()), "timeoutSec");

  m = good();
  m["attachments"] = json::array{json::object{{"id", "a"}, {"name", "n"}, {"mimeType", "text/plain"}, {"size", "12"},
                                              {"sha256", "x"}, {"addedAt", "t"}, {"relativePath", "attachments/a/n"}}};
  read = parse(m);
  ASSERT_FALSE(read);
  EXPECT_EQ(field_of(read.error()), "attachments[0].size");
}

TEST(AgentRunnerManifestReader, NamesAFileThatCannotBeRead) {
  auto read = read_manifest("/nonexistent/run.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, core::ErrorCode::not_found);
  EXPECT_TRUE(contains(read.error().message, "/nonexistent/run.json")) << read.error().message;
}

std::string lines(const std::vector<json::object>& records) {
  std::string out;
  for (const auto& r : records) out += json::serialize(r) + "\n";
  return out;
}

TEST(AgentRunnerEventsReader, ReadsRecordsInCursorOrderWithTheirOwnFields) {
  const auto text = lines({test::agent_runner_event("r1", 2, "task.added", "task_command", {{"taskId", "t"}}),
                           test::agent_runner_event("other", 1, "run.created", "cli"),
                           test::agent_runner_event("r1", 1, "run.created", "cli", {{"agentName", "worker"}})}) +
                    "\n";
  auto read = parse_run_events(text, "/s/run-events.jsonl", "r1");
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[0].cursor, 1);
  EXPECT_EQ((*read)[0].event_type, "run.created");
  EXPECT_EQ((*read)[0].fields, (json::object{{"agentName", "worker"}}));
  EXPECT_EQ((*read)[1].source, "task_command");
  EXPECT_EQ((*read)[1].fields, (json::object{{"taskId", "t"}}));
}

TEST(AgentRunnerEventsReader, NamesTheLineAndFieldOfAMalformedRecord) {
  auto read = parse_run_events(lines({test::agent_runner_event("r1", 1, "run.created", "cli")}) + "{oops\n",
                               "/s/run-events.jsonl", "r1");
  ASSERT_FALSE(read);
  EXPECT_TRUE(contains(read.error().message, "/s/run-events.jsonl: line 2 is not JSON")) << read.error().message;

  auto bad_source = test::agent_runner_event("r1", 1, "run.created", "robot");
  read = parse_run_events(lines({bad_source}), "/s/run-events.jsonl", "r1");
  ASSERT_FALSE(read);
  EXPECT_EQ(field_of(read.error()), "source");
  EXPECT_TRUE(contains(read.error().message, "/s/run-events.jsonl line 1: source must be one of")) << read.error().message;

  auto no_cursor = test::agent_runner_event("r1", 1, "run.created", "cli");
  no_cursor["cursor"] = 0;
  read = parse_run_events(lines({no_cursor}), "/s/run-events.jsonl", "r1");
  ASSERT_FALSE(read);
  EXPECT_EQ(field_of(read.error()), "cursor");

  auto v1 = test::agent_runner_event("r1", 1, "run.created", "cli");
  v1["schemaVersion"] = 1;
  read = parse_run_events(lines({v1}), "/s/run-events.jsonl", "r1");
  ASSERT_FALSE(read);
  EXPECT_EQ(field_of(read.error()), "schemaVersion");

  read = parse_run_events(lines({test::agent_runner_event("r1", 1, "run.created", "cli"),
                                 test::agent_runner_event("r1", 1, "run.started", "system")}),
                          "/s/run-events.jsonl", "r1");
  ASSERT_FALSE(read);
  EXPECT_EQ(field_of(read.error()), "cursor");
  EXPECT_TRUE(contains(read.error().message, "cursor 1 appears twice")) << read.error().message;
}

TEST(AgentRunnerEventsReader, AMissingFileHasNoRecords) {
  test::TempDir dir;
  auto read = read_run_events(dir.path() / "run-events.jsonl", "r1");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->empty());
  auto stderr_text = read_attempt_stderr(dir.path() / "attempts/01.json");
  ASSERT_TRUE(stderr_text) << stderr_text.error().message;
  EXPECT_FALSE(stderr_text->has_value());
}

TEST(AgentRunnerEventsReader, ReadsAnAttemptLogsStderrAndRefusesAnotherVersion) {
  test::TempDir dir;
  test::AgentRunnerState state(dir.path());
  state.write_attempt_log("repo", "r1", 1, 0, "warning: x");
  auto read = read_attempt_stderr(state.run_dir("repo", "r1") / "attempts/01.json");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->value(), "warning: x");

  state.write_file("repo", "r1", "attempts/02.json", R"({"schemaVersion": 2, "stderr": ""})");
  read = read_attempt_stderr(state.run_dir("repo", "r1") / "attempts/02.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(field_of(read.error()), "schemaVersion");
  EXPECT_TRUE(contains(read.error().message, "attempts/02.json: schemaVersion must be 3")) << read.error().message;
}

ManifestAttachment entry_from(const json::object& o) {
  return {std::string(o.at("id").as_string()), std::string(o.at("name").as_string()), "", o.at("size").to_number<std::uint64_t>(),
          std::string(o.at("sha256").as_string()), "", std::string(o.at("relativePath").as_string())};
}

TEST(AgentRunnerAttachmentsReader, ChecksPathSizeAndDigest) {
  test::TempDir dir;
  test::AgentRunnerState state(dir.path());
  const auto run_dir = state.run_dir("repo", "r1");
  auto entry = entry_from(state.write_attachment("repo", "r1", "a1", "f.txt", "hello"));
  auto file = check_attachment_file(run_dir, entry, 0);
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->filename(), "f.txt");

  auto outside = entry;
  outside.relative_path = "../../secret";
  auto refused = check_attachment_file(run_dir, outside, 3);
  ASSERT_FALSE(refused);
  EXPECT_EQ(field_of(refused.error()), "attachments[3].relativePath");

  auto missing = entry;
  missing.relative_path = "attachments/a1/none.txt";
  refused = check_attachment_file(run_dir, missing, 0);
  ASSERT_FALSE(refused);
  EXPECT_EQ(field_of(refused.error()), "attachments[0].relativePath");

  auto longer = entry;
  longer.size = 6;
  refused = check_attachment_file(run_dir, longer, 0);
  ASSERT_FALSE(refused);
  EXPECT_EQ(field_of(refused.error()), "attachments[0].size");

  state.write_file("repo", "r1", "attachments/a1/f.txt", "jello");
  refused = check_attachment_file(run_dir, entry, 0);
  ASSERT_FALSE(refused);
  EXPECT_EQ(field_of(refused.error()), "attachments[0].sha256");
  EXPECT_TRUE(contains(refused.error().message, "r1/run.json: attachments[0].sha256 does not match")) << refused.error().message;
}

}  // namespace
}  // namespace agentry::store_import::agent_runner
