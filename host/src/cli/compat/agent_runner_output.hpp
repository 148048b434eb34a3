#pragma once
// What agent-runner's commands print: their JSON (agent-runner's DTOs, translated from
// our operations' answers by api/compat/compat_dto.hpp, two-space indented as theirs)
// and short text lines for people.

#include "api/compat/compat_facts.hpp"
#include "core/result.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace agentry::cli::compat {

/// `agent-runner --help`: the commands supported, how the daemon is reached, the exit
/// codes, and where agent-runner's other commands go.
const char* help_text();

/// `value` as indented JSON and a newline.
std::string pretty_json(const boost::json::value& value);

/// Their RunDetail cut down to the named top-level fields, in the order named;
/// INVALID_REQUEST naming each field RunDetail does not have.
core::Result<boost::json::object> project_fields(const boost::json::object& detail,
                                                 const std::vector<std::string>& fields);

/// `run status` for people, from their RunDetail: Run, Name, Status, Agent, Assignment,
/// Cwd, Tasks (completed of all), one `Key: value` line each.
std::string status_lines(const boost::json::object& detail);
/// One line per task of their task list: id, status, title.
std::string task_lines(const boost::json::array& tasks);
/// One task of theirs in full: id, title, status, body and notes.
std::string task_text(const boost::json::object& task);
/// One line per attachment of their list: id, size, name (and its run when another's).
std::string attachment_lines(const boost::json::array& attachments, const std::string& run_id);
/// `run audit` for people, from their RunAuditHistory: `<recordedAt>  <type> <fields>`.
std::string audit_lines(const boost::json::object& history);
/// `run queued-messages` for people: each message's id and time, then its text indented.
std::string queued_message_lines(const boost::json::array& messages, const std::string& run_id);

}  // namespace agentry::cli::compat
