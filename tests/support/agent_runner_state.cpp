#include "support/agent_runner_state.hpp"

#include "support/temp_dir.hpp"

#include <openssl/sha.h>

#include <cstdio>

namespace agentry::test {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::string sha256_hex(const std::string& bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  std::string out;
  char hex[3];
  for (unsigned char c : digest) {
    std::snprintf(hex, sizeof hex, "%02x", c);
    out += hex;
  }
  return out;
}

}  // namespace

json::object agent_runner_manifest(const std::string& run_id, const std::string& status, const std::string& cwd) {
  json::object seed{{"backend", "passive"}, {"model", nullptr}, {"effort", nullptr},
                    {"resolvedBackendArgs", json::array{}}, {"launcher", {{"kind", "direct"}, {"name", "direct"}}},
                    {"executionEnvironment", nullptr}, {"cwd", cwd}, {"lockedFields", json::array{}},
                    {"message", "Do the work."}, {"name", nullptr}, {"note", nullptr}, {"pinned", false},
                    {"runGroupId", run_id}, {"dependencies", json::array{}}, {"parentRunId", nullptr},
                    {"unrestricted", false}, {"timeoutSec", 600}, {"maxAttemptsPerSession", 2},
                    {"brief", "Brief."}, {"runtimeVars", json::object{}}, {"runtimeVarSources", json::object{}},
                    {"hookState", json::object{}}, {"attachments", json::array{}}, {"finalTasks", json::object{}}};
  return json::object{
      {"schemaVersion", 25}, {"runId", run_id}, {"repo", "alpha"},
      {"agent", {{"name", "worker"}, {"sourcePath", "/defs/agents/worker/agent.md"}, {"instructions", "You are the worker."}}},
      {"assignment", nullptr}, {"backend", "passive"}, {"model", nullptr}, {"effort", nullptr},
      {"resolvedBackendArgs", json::array{}}, {"launcher", {{"kind", "direct"}, {"name", "direct"}}},
      {"message", "Do the work."}, {"name", nullptr}, {"note", nullptr}, {"pinned", false}, {"unrestricted", false},
      {"cwd", cwd}, {"lockedFields", json::array{}}, {"timeoutSec", 600}, {"workspaceDir", "/state/" + run_id},
      {"startedAt", "2026-05-01T10:00:00.000Z"}, {"updatedAt", "2026-05-01T10:30:00.000Z"}, {"endedAt", nullptr},
      {"archivedAt", nullptr}, {"status", status}, {"runGroupId", run_id}, {"dependencies", json::array{}},
      {"parentRunId", nullptr}, {"schedule", nullptr}, {"queuedResumeMessages", json::array{}},
      {"parentCompletionNotifications", json::array{}}, {"exitCode", nullptr}, {"totalAttemptCount", 0},
      {"maxAttemptsPerSession", 2}, {"tasksCompleted", 0}, {"tasksTotal", 0}, {"backendSessionId", nullptr},
      {"backendSessionSync", nullptr}, {"runtimeVars", json::object{}}, {"runtimeVarSources", json::object{}},
      {"execution", {{"hostMode", "embedded"}, {"controller", {{"kind", "embedded"}}}}},
      {"executionEnvironment", nullptr}, {"brief", "Brief."}, {"resolvedHooks", json::array{}},
      {"hookState", json::object{}}, {"hookAudits", json::array{}}, {"callerInstructions", nullptr},
      {"resetSeed", std::move(seed)}, {"attachments", json::array{}}, {"finalTasks", json::object{}},
      {"totalSessionCount", 0}, {"sessions", json::array{}}, {"attemptRecords", json::array{}}};
}

json::object agent_runner_event(const std::string& run_id, std::int64_t cursor, const std::string& type,
                                const std::string& source, json::object fields) {
  json::object record{{"schemaVersion", 2},  {"recordedAt", "2026-05-01T10:00:0" + std::to_string(cursor % 10) + ".000Z"},
                      {"cursor", cursor},    {"runId", run_id},
                      {"eventType", type},   {"source", source},
                      {"hostMode", "embedded"}};
  for (auto& [key, value] : fields) record[key] = value;
  return record;
}

void AgentRunnerState::write_manifest(const std::string& bucket, const json::object& manifest) const {
  const std::string id(manifest.at("runId").as_string());
  agentry::test::write_file(run_dir(bucket, id) / "run.json", json::serialize(manifest));
}

void AgentRunnerState::write_events(const std::string& bucket, const std::string& run_id,
                                    const std::vector<json::object>& events) const {
  std::string text;
  for (const auto& e : events) text += json::serialize(e) + "\n";
  agentry::test::write_file(run_dir(bucket, run_id) / "run-events.jsonl", text);
}

void AgentRunnerState::write_attempt_log(const std::string& bucket, const std::string& run_id, int attempt, int session,
                                         const std::string& stderr_text) const {
  char name[32];
  std::snprintf(name, sizeof name, "attempts/%02d.json", attempt);
  const json::object log{{"schemaVersion", 3}, {"runId", run_id}, {"attemptNumber", attempt}, {"sessionIndex", session},
                         {"attemptIndexInSession", 0}, {"startedAt", "2026-05-01T10:01:00.000Z"},
                         {"endedAt", "2026-05-01T10:02:00.000Z"}, {"stderr", stderr_text}};
  agentry::test::write_file(run_dir(bucket, run_id) / name, json::serialize(log));
}

json::object AgentRunnerState::write_attachment(const std::string& bucket, const std::string& run_id,
                                                const std::string& id, const std::string& name,
                                                const std::string& bytes) const {
  const std::string relative = "attachments/" + id + "/" + name;
  agentry::test::write_file(run_dir(bucket, run_id) / relative, bytes);
  return json::object{{"id", id},
                      {"name", name},
                      {"mimeType", "application/octet-stream"},
                      {"size", bytes.size()},
                      {"sha256", sha256_hex(bytes)},
                      {"addedAt", "2026-05-01T10:05:00.000Z"},
                      {"relativePath", relative}};
}

void AgentRunnerState::write_file(const std::string& bucket, const std::string& run_id, const std::string& relative,
                                  const std::string& content) const {
  agentry::test::write_file(run_dir(bucket, run_id) / relative, content);
}

}  // namespace agentry::test
