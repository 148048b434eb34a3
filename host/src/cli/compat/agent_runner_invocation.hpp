#pragma once
// One `agent-runner` invocation: its parsed words and options, the streams, the client,
// and the checks and output every command shares. The commands are defined by job:
//   agent_runner_cli.cpp              dispatch: which command a line is
//   agent_runner_run_verbs.cpp        run, init, run --resume-run, run status|brief
//   agent_runner_lifecycle_verbs.cpp  run ready|reset|reconfigure|schedule|delete|audit,
//                                     queued resume messages
//   agent_runner_metadata_verbs.cpp   run set-name|set-note|clear-note|pin|unpin|archive|
//                                     unarchive|set-group|clear-group|(set|clear)-backend-session|
//                                     add-dep|remove-dep|clear-deps
//   agent_runner_listing_verbs.cpp    list runs|<definitions>, show <definition>
//   agent_runner_task_verbs.cpp       task ...
//   agent_runner_attachment_verbs.cpp attachment ...

#include "api/compat/compat_facts.hpp"
#include "cli/command_context.hpp"
#include "cli/compat/agent_runner_args.hpp"
#include "cli/compat/agent_runner_output.hpp"
#include "cli/exit_codes.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace agentry::cli {
struct MessageInput;
}  // namespace agentry::cli

namespace agentry::cli::compat {

/// Points at agent-runner's own CLI for what this command set leaves out.
extern const char* const own_cli_pointer;

class Invocation {
 public:
  Invocation(AgentRunnerArgs args, CommandContext& ctx) : args_(std::move(args)), ctx_(ctx) {}

  int dispatch();

 private:
  // --- checks and output (agent_runner_cli.cpp) ---
  int usage(const std::string& message, int code = exit_code::config_error);
  /// agent-runner's exit code for a refused or failed call: 3, or 4 when the daemon failed.
  int failed(const core::Error& error);
  bool json_output() const { return args_.value("--output-format").value_or("text") == "json"; }
  /// Refuses options `command` does not take, and a bad --output-format.
  std::optional<int> refuse_others(const std::string& command, const std::vector<std::string>& allowed,
                                   int code = exit_code::config_error);
  /// Exactly `names.size()` words after the command's own `skip` words, else a usage error.
  std::optional<int> want_words(const std::string& command, std::size_t skip, const std::vector<std::string>& names,
                                int code = exit_code::config_error);
  const std::string& word(std::size_t i) const { return args_.words[i]; }
  /// The message: the words after the command, or --message-file (not both, as
  /// agent-runner). A usage error's exit code, else nullopt.
  std::optional<int> message_from_words(MessageInput& message);
  /// The words from `from` on, space-joined (a message given in words).
  std::string words_from(std::size_t from) const;
  int print_json(const boost::json::value& value);
  /// `line` on standard output, with its newline.
  int print_line(const std::string& line);
  api::compat::CompatFacts facts();
  /// Our runs.get's run (its RunDetail) for `run_id`.
  core::Result<boost::json::object> native_run(const std::string& run_id);

  // --- run, init, resume, status, brief (agent_runner_run_verbs.cpp) ---
  int run_status();
  int run_brief();
  int start(bool is_init);
  int resume();
  /// Runs `command` (agentry's own) on a context whose output is kept when agent-runner's
  /// JSON is wanted, then prints that: `shape` makes it from our last answer's run.
  int through_own_command(const std::function<int(CommandContext&)>& command,
                          const std::function<boost::json::value(const boost::json::object& native_run)>& shape);

  // --- lifecycle, messages, audit (agent_runner_lifecycle_verbs.cpp) ---
  int run_ready();
  int run_reset();
  int run_reconfigure();
  int run_schedule();
  int run_delete();
  int run_audit();
  int queue_message();
  int queued_messages();
  int remove_queued_message();

  // --- run settings (agent_runner_metadata_verbs.cpp) ---
  int metadata_command(const std::string& verb);

  // --- list and show (agent_runner_listing_verbs.cpp) ---
  int list_command();
  int show_command();

  // --- tasks and attachments ---
  int task_command();
  int attachment_command();

  AgentRunnerArgs args_;
  CommandContext& ctx_;
};

}  // namespace agentry::cli::compat
