// agent-runner's `task list|show|set|append-notes|add <run> ...`: one task operation
// each, answered with its task (RunTaskSummary) or list.

#include "api/compat/compat_dto.hpp"
#include "cli/compat/agent_runner_invocation.hpp"

#include <boost/json.hpp>

namespace agentry::cli::compat {
namespace json = boost::json;

int Invocation::task_command() {
  const std::string verb = args_.words.size() >= 2 ? word(1) : "";
  std::optional<int> refused;
  json::object params;
  std::string method;
  if (verb == "list") {
    if ((refused = refuse_others("task list", {"--output-format"})) || (refused = want_words("task list", 2, {"run"})))
      return *refused;
    auto listed = ctx_.call("tasks.list", json::object{{"runId", word(2)}});
    if (!listed) return failed(listed.error());
    json::array tasks;
    for (const auto& t : listed->at("tasks").as_array()) tasks.push_back(api::compat::ref_task(t.as_object()));
    if (json_output()) return print_json(tasks);
    ctx_.out() << task_lines(tasks);
    return exit_code::success;
  }
  if (verb == "show") {
    if ((refused = refuse_others("task show", {"--output-format"})) ||
        (refused = want_words("task show", 2, {"run", "task"})))
      return *refused;
    method = "tasks.get";
  } else if (verb == "set") {
    if ((refused = refuse_others("task set", {"--output-format", "--status", "--notes"})) ||
        (refused = want_words("task set", 2, {"run", "task"})))
      return *refused;
    if (!args_.has("--status") && !args_.has("--notes")) return usage("task set needs --status or --notes");
    method = "tasks.set";
    if (auto status = args_.value("--status")) params["status"] = *status;
    if (auto notes = args_.value("--notes")) params["notes"] = *notes;
  } else if (verb == "append-notes") {
    if ((refused = refuse_others("task append-notes", {"--output-format", "--text"})) ||
        (refused = want_words("task append-notes", 2, {"run", "task"})))
      return *refused;
    auto text = args_.value("--text");
    if (!text) return usage("task append-notes needs --text <text>");
    method = "tasks.appendNotes";
    params["text"] = *text;
  } else if (verb == "add") {
    if ((refused = refuse_others("task add", {"--output-format", "--title", "--body"})) ||
        (refused = want_words("task add", 2, {"run"})))
      return *refused;
    auto title = args_.value("--title");
    if (!title) return usage("task add needs --title <title>");
    method = "tasks.add";
    params["title"] = *title;
    if (auto body = args_.value("--body")) params["body"] = *body;
  } else {
    return usage("task needs a subcommand: list, show, set, append-notes or add (got '" + verb + "')");
  }
  params["runId"] = word(2);
  if (method != "tasks.add") params["taskId"] = word(3);
  auto answer = ctx_.call(method, std::move(params));
  if (!answer) return failed(answer.error());
  const auto task = api::compat::ref_task(answer->at("task").as_object());
  if (json_output()) return print_json(task);
  if (verb == "show") ctx_.out() << task_text(task);
  else
    ctx_.out() << (verb == "add" ? "added" : "updated") << " task " << task.at("id").as_string().c_str() << " of run "
               << word(2) << ": " << task.at("status").as_string().c_str() << "\n";
  return exit_code::success;
}

}  // namespace agentry::cli::compat
