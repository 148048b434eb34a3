// The protocol state of one attempt: the turns Claude still owes a `result` for, the
// approvals it waits on, an interrupt under way, the session id, and how the attempt
// ends. Pure (no I/O): the attempt feeds it stdout lines and host commands, and carries
// out the Steps it returns. Not thread-safe: the attempt serializes calls.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "events.hpp"
#include "normalizer.hpp"

namespace agentry::claude {

// What to do after one input: events to emit, then bytes for Claude's stdin.
struct Step {
  std::vector<Event> events;
  std::vector<std::string> writes;  // whole stdin lines, in order
  bool close_stdin = false;         // every turn has its result: let Claude exit

  void append(Step other);
};

struct Outcome {
  std::string outcome;  // "success" | "error" | "interrupted"
  std::string message;  // empty for a plain success
};

class Conversation {
 public:
  explicit Conversation(bool unrestricted) : unrestricted_(unrestricted) {}

  // The opening lines: the initialize control request, then `prompt` as the first turn.
  Step open(std::string_view prompt);

  // One line of Claude's stdout.
  Step on_line(std::string_view line);

  // A follow-up message. Claude queues it as its own turn after the running one, and the
  // attempt then waits for that turn too. nullopt when no turn is running any more (or an
  // interrupt is under way): the message would reach nobody.
  std::optional<Step> on_message(std::string_view text);

  // The answer to APPROVAL_REQUEST `approval_id`; nullopt when no such request waits.
  std::optional<Step> on_approval(std::string_view approval_id, bool approve);

  // Interrupts the running turn, and every queued one as it starts; denies the pending
  // approvals. Idempotent; nothing once every turn has ended.
  Step on_interrupt(std::string_view reason);

  // Like on_interrupt, but the attempt ends as an error ("timed out after N s").
  Step on_timeout(int64_t seconds);

  // True once every turn sent to Claude has its `result`.
  bool turns_done() const noexcept { return outstanding_ == 0; }
  bool interrupting() const noexcept { return interrupting_; }
  std::size_t pending_approvals() const noexcept { return pending_.size(); }

  // How the attempt ends, judged from the last `result` (Claude's exit code mirrors it)
  // and our own interrupt or timeout. `process_note` describes a process that ended before
  // every turn had its result ("" when it did not).
  Outcome outcome(std::string_view process_note) const;

 private:
  Step on_control_request(ControlRequest request);
  Step on_result(const TurnResult& result);
  Step deny_pending(std::string_view message);
  std::string next_request_id();

  struct PendingApproval {
    std::string tool_name;
    boost::json::value input;
  };

  Normalizer normalizer_;
  const bool unrestricted_;
  int outstanding_ = 0;            // turns sent whose `result` has not arrived
  bool stdin_closed_ = false;
  bool interrupting_ = false;
  std::string interrupt_reason_;
  int64_t timed_out_after_ = -1;   // seconds; -1 when no timeout fired
  uint64_t request_counter_ = 0;
  std::map<std::string, PendingApproval, std::less<>> pending_;  // by Claude's request_id (= approvalId)
  std::string session_id_;
  std::optional<TurnResult> last_result_;
};

}  // namespace agentry::claude
