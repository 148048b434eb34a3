// agent-runner's `list runs|agents|assignments|launchers|environments|tasks` and `show
// agent|assignment|launcher|task <name>`: our lists and definitions in its shapes
// (RunSummary, DefinitionListResult, DefinitionDetail). An environment's detail cannot be
// its (ours are another schema) and is refused, as on the compat listener.

#include "api/compat/compat_dto.hpp"
#include "cli/compat/agent_runner_invocation.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <map>

namespace agentry::cli::compat {
namespace json = boost::json;

namespace {

struct Kind {
  const char* native_plural;   // our `<plural>.list` / `.get`
  const char* native_singular; // the member our `.get` answers in
  const char* title;           // its text's first word
};

/// Their list words and show words, and ours for each.
const std::map<std::string, Kind>& list_kinds() {
  static const std::map<std::string, Kind> kinds{{"agents", {"agents", "agent", "Agent"}},
                                                 {"assignments", {"assignments", "assignment", "Assignment"}},
                                                 {"launchers", {"launchers", "launcher", "Launcher"}},
                                                 {"environments", {"environments", "environment", "Environment"}},
                                                 {"tasks", {"taskDefinitions", "taskDefinition", "Task"}}};
  return kinds;
}

std::string text_at(const json::object& o, const char* key, const std::string& fallback = "") {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : fallback;
}

/// Their renderRunList line.
std::string run_line(const json::object& run) {
  std::string line = text_at(run, "runId") + " [" + text_at(run, "effectiveStatus") + "] name=" +
                     text_at(run, "name", "<unnamed>") + " " + json::serialize(run.at("tasksCompleted")) + "/" +
                     json::serialize(run.at("tasksTotal")) + " repo=" + text_at(run, "repo") +
                     " agent=" + text_at(run, "agentName") + " assignment=" + text_at(run, "assignmentName", "none");
  if (const auto archived = text_at(run, "archivedAt"); !archived.empty()) line += " archived=" + archived;
  return line + " cwd=" + text_at(run, "cwd");
}

/// A definition's detail for people: its kind and name, where it is, and its text.
std::string detail_text(const std::string& title, const std::string& name, const json::object& detail) {
  std::string out = title + ": " + name + "\n";
  std::string source = text_at(detail, "sourcePath");
  std::string body = text_at(detail, "instructions");
  if (const auto* definition = detail.if_contains("definition"); definition && definition->is_object()) {
    source = text_at(definition->as_object(), "sourcePath", "built-in");
    out += "  command:      " + text_at(definition->as_object(), "command", "(none: direct)") + "\n";
  }
  if (const auto* task = detail.if_contains("task"); task && task->is_object()) {
    out += "  title:        " + text_at(task->as_object(), "title") + "\n";
    body = text_at(task->as_object(), "body");
  }
  out += "  source:       " + source + "\n";
  if (!body.empty()) out += "\n" + body + "\n";
  return out;
}

}  // namespace

int Invocation::list_command() {
  const std::string what = args_.words.size() >= 2 ? word(1) : "";
  if (what == "runs") {
    if (auto refused = refuse_others("list runs", {"--output-format", "--cwd", "--repo", "--global", "--group-id",
                                                   "--include-archived"}))
      return *refused;
    if (auto refused = want_words("list runs", 2, {})) return *refused;
    const int scopes = static_cast<int>(args_.has("--cwd")) + static_cast<int>(args_.has("--repo")) +
                       static_cast<int>(args_.has("--global")) + static_cast<int>(args_.has("--group-id"));
    if (scopes > 1) return usage("list runs accepts only one of --cwd, --repo, --global, or --group-id");
    // Theirs lists the current directory's runs unless told otherwise; a repo is its
    // bucket name, kept from every run here.
    json::object query;
    if (auto group = args_.value("--group-id")) query["runGroupId"] = *group;
    else if (args_.has("--global") || args_.has("--repo")) query["global"] = "true";
    else {
      // Runs keep their cwd canonical.
      std::error_code ec;
      auto cwd = std::filesystem::weakly_canonical(ctx_.env().cwd / args_.value("--cwd").value_or("."), ec);
      std::string text = cwd.string();
      if (text.size() > 1 && text.back() == '/') text.pop_back();
      query["cwd"] = text;
    }
    query["includeArchived"] = args_.has("--include-archived") ? "true" : "false";
    query["limit"] = "500";
    const auto facts_now = facts();
    json::array runs;
    json::value cursor = nullptr;
    do {
      json::object page_query = query;
      if (cursor.is_string()) page_query["cursor"] = cursor.as_string();
      auto page = ctx_.call("runs.list", std::move(page_query));
      if (!page) return failed(page.error());
      for (const auto& summary : page->as_object().at("runs").as_array()) {
        auto theirs = api::compat::ref_summary(summary.as_object(), facts_now);
        if (auto repo = args_.value("--repo"); repo && theirs.at("repo").as_string() != *repo) continue;
        runs.push_back(std::move(theirs));
      }
      cursor = page->as_object().at("nextCursor");
    } while (cursor.is_string());
    if (json_output()) return print_json(runs);
    if (runs.empty()) return print_line("No runs found.");
    for (const auto& run : runs) ctx_.out() << run_line(run.as_object()) << "\n";
    return exit_code::success;
  }
  const auto kind = list_kinds().find(what);
  if (kind == list_kinds().end())
    return usage("list requires a kind: agents, assignments, launchers, environments, tasks, or runs" +
                 (what.empty() ? std::string() : " (got \"" + what + "\")"));
  if (auto refused = refuse_others("list " + what, {"--output-format"})) return *refused;
  if (auto refused = want_words("list " + what, 2, {})) return *refused;
  auto listed = ctx_.call(std::string(kind->second.native_plural) + ".list", json::object{});
  if (!listed) return failed(listed.error());
  const auto list = api::compat::ref_definition_list(listed->as_object().at(kind->second.native_plural).as_object());
  if (json_output()) return print_json(list);
  for (const auto& warning : list.at("warnings").as_array())
    ctx_.err() << "agent-runner: warning: " << warning.as_string().c_str() << "\n";
  const auto& entries = list.at("entries").as_array();
  if (entries.empty()) return print_line("No " + text_at(list, "kind") + " definitions found.");
  for (const auto& entry : entries) ctx_.out() << "  " << text_at(entry.as_object(), "name") << "\n";
  return exit_code::success;
}

int Invocation::show_command() {
  const std::string what = args_.words.size() >= 2 ? word(1) : "";
  const auto kind = list_kinds().find(what == "task" ? std::string("tasks") : what + "s");
  if (what.empty() || kind == list_kinds().end())
    return usage("show requires a kind: agent, assignment, launcher, environment, or task" +
                 (what.empty() ? std::string() : " (got \"" + what + "\")"));
  if (auto refused = refuse_others("show " + what, {"--output-format"})) return *refused;
  if (auto refused = want_words("show " + what, 2, {"name|path"})) return *refused;
  const std::string& target = word(2);
  if (what == "environment")
    return usage("show environment is not supported: agentry's environments (docs/environments.md) are another "
                 "schema than agent-runner's container environments; use `agentry environments show " + target + "`");
  json::object detail;
  if (what == "launcher" && target == "direct") {
    detail = api::compat::ref_direct_launcher_detail();
  } else {
    auto got = ctx_.call(std::string(kind->second.native_plural) + ".get",
                         json::object{{"target", target}, {"cwd", ctx_.env().cwd.string()}});
    if (!got) return failed(got.error());
    detail = api::compat::ref_definition_detail(got->as_object().at(kind->second.native_singular).as_object());
  }
  if (json_output()) return print_json(detail);
  ctx_.out() << detail_text(kind->second.title, target, detail);
  return exit_code::success;
}

}  // namespace agentry::cli::compat
