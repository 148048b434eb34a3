#pragma once
// An agent-runner state directory written by a test, in the layout the importer reads
// (docs/import.md): runs/<repo bucket>/<run id>/run.json (schemaVersion 25),
// run-events.jsonl, attempts/NN.json and attachments/<id>/<file>. Written from the
// format's description, with only the values each test needs to differ.

#include <boost/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace agentry::test {

/// A manifest of schemaVersion 25 with every field present and neutral values: a passive
/// run in `status`, in group `group`, no sessions, no tasks.
boost::json::object agent_runner_manifest(const std::string& run_id, const std::string& status, const std::string& cwd);

/// One audit record of run-events.jsonl (schemaVersion 2) with `fields` beside the shared keys.
boost::json::object agent_runner_event(const std::string& run_id, std::int64_t cursor, const std::string& type,
                                       const std::string& source, boost::json::object fields = {});

class AgentRunnerState {
 public:
  explicit AgentRunnerState(std::filesystem::path root) : root_(std::move(root)) {}
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path run_dir(const std::string& bucket, const std::string& run_id) const {
    return root_ / "runs" / bucket / run_id;
  }
  void write_manifest(const std::string& bucket, const boost::json::object& manifest) const;
  void write_events(const std::string& bucket, const std::string& run_id, const std::vector<boost::json::object>& events) const;
  void write_attempt_log(const std::string& bucket, const std::string& run_id, int attempt, int session,
                         const std::string& stderr_text) const;
  /// Writes the bytes under attachments/<id>/<name> and returns the manifest's entry for them.
  boost::json::object write_attachment(const std::string& bucket, const std::string& run_id, const std::string& id,
                                       const std::string& name, const std::string& bytes) const;
  void write_file(const std::string& bucket, const std::string& run_id, const std::string& relative,
                  const std::string& content) const;

 private:
  std::filesystem::path root_;
};

}  // namespace agentry::test
