#pragma once
// Human output of the operations' JSON results. Pure functions of the JSON (no I/O, no
// clock), so tests pin them down; --json bypasses them and prints the JSON itself.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace agentry::cli {

/// A member as display text: strings as they are, numbers and booleans printed, null
/// and absent as "" (or `fallback`).
std::string text_at(const boost::json::value& object, std::string_view key, std::string_view fallback = "");
/// A string value's text; "" for anything else.
std::string text_of(const boost::json::value& value);
/// "2026-04-18T10:35:00.123Z" -> "2026-04-18 10:35:00" (UTC); other text unchanged.
std::string short_time(const std::string& iso);
/// "10:35:00" of an ISO timestamp; "" when it is not one.
std::string clock_time(const std::string& iso);
/// 95'000 ms -> "1m35s"; 3'600'000 -> "1h00m"; 800 -> "0s".
std::string duration_text(long long milliseconds);

/// runs.list: one row per run, and a note when there are more pages.
std::string render_run_list(const boost::json::object& result);
/// runs.get and other {run: RunDetail} results: the run's fields, tasks and sessions.
std::string render_run_detail(const boost::json::object& run);
/// One line about a run (RunSummary or RunDetail): status and reason, tasks, attempts
/// and sessions, the live session, what it waits on.
std::string render_run_status(const boost::json::object& run);
/// A task list (tasks.list's tasks, RunDetail.tasks).
std::string render_tasks(const boost::json::array& tasks);
/// One task (tasks.get / tasks.set ...): a line per field.
std::string render_task(const boost::json::object& task);
/// runs.auditHistory's events.
std::string render_audit(const boost::json::array& events);
/// backends.list.
std::string render_backends(const boost::json::object& result);
std::string render_daemons(const boost::json::object& result);
/// A DefinitionListResult ({kind, entries, warnings}).
std::string render_definition_list(const boost::json::object& list);
/// A DefinitionDetail ({kind, <kind>: {...}, sourcePath, warnings}).
std::string render_definition_detail(const boost::json::object& detail);

}  // namespace agentry::cli
