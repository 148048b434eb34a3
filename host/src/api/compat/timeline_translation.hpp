#pragma once
// agent-runner's timeline, made from ours. Its clients follow a run through a small
// vocabulary (run_started, attempt_started, agent_message_delta, backend_notice,
// retrying, run_aborted, run_finished, ...) and rebuild each attempt's transcript as the
// concatenation of the message deltas; this turns each of our timeline events into zero
// or more of theirs and keeps the attempts as their history shows them, so that history
// and live events always agree. Pure: what it needs of the run it asks `facts` for.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace agentry::api::compat {

/// What a translation reads of the run, when an event needs it.
struct RunFacts {
  std::string agent_name;
  std::optional<std::string> assignment_source_path;
  std::optional<std::string> name;
  std::string cwd;
  std::map<int, std::string> session_prompts;  // each session's first prompt, by index
  /// run_finished's `summary` (RunCompletionSummary), as of now.
  boost::json::object completion_summary;
};
using RunFactsSource = std::function<std::optional<RunFacts>()>;

class TimelineTranslation {
 public:
  explicit TimelineTranslation(std::string run_id) : run_id_(std::move(run_id)) {}

  /// Their events for one of ours: a timeline envelope as our history route and streams
  /// give it ({cursor, kind, attemptNumber, at, payload[, ephemeral]}), in order.
  std::vector<boost::json::object> translate(const boost::json::object& native, const RunFactsSource& facts);

  /// RunTimelineAttempt[] as of the events translated so far.
  boost::json::array attempts() const;

 private:
  struct Attempt {
    int number = 0;
    int session_index = 0;
    int index_in_session = 0;
    std::string started_at;
    std::optional<std::string> ended_at;
    std::string prompt;
    std::string transcript;
    std::string notices;
    std::optional<int> exit_code;
    bool timed_out = false;
    bool live = true;
  };
  Attempt* attempt(int number);
  void append_text(std::vector<boost::json::object>& out, int attempt_number, const std::string& text);
  void append_notice(std::vector<boost::json::object>& out, int attempt_number, const std::string& text);
  void end_live_attempts(const std::string& at);

  std::string run_id_;
  std::vector<Attempt> attempts_;
  std::set<int> sessions_started_;
  std::optional<RunFacts> facts_;  // read once per session start, as the run was then
  /// Characters of each message item streamed as deltas so far (the completed message
  /// then adds only the rest).
  std::map<std::string, std::size_t> streamed_;
};

}  // namespace agentry::api::compat
