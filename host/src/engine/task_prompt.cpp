#include "engine/task_prompt.hpp"

#include "core/log.hpp"
#include "core/text.hpp"
#include "definitions/template.hpp"
#include "engine/hooks/prepare_at_init.hpp"
#include "engine/run_inputs.hpp"
#include "store/task_repository.hpp"
#include "store/transaction.hpp"

#include <fstream>
#include <iterator>

namespace agentry::engine {
namespace {

constexpr std::size_t max_template_bytes = 64 * 1024;

const std::string& commands_template() {
  static const std::string text =
      "Report progress from your shell with these commands (they reach this run through "
      "AGENTRY_CONNECT and AGENTRY_RUN_ID, already set in your environment):\n"
      "- starting a task:  {{agentry}} task set <task-id> --status in_progress\n"
      "- finished a task:  {{agentry}} task set <task-id> --status completed --notes \"what you did\"\n"
      "- cannot go on:     {{agentry}} task set <task-id> --status blocked --notes \"why, and what you need\"\n"
      "- add a note:       {{agentry}} task append-notes <task-id> \"text\"\n"
      "- found more work:  {{agentry}} task add \"title\" --id <new-task-id>\n"
      "The run succeeds when every task is completed and stops when one is blocked; "
      "mark each task as soon as its state changes.";
  return text;
}

std::string task_list(const std::vector<core::Task>& tasks) {
  std::string out;
  for (const auto& t : tasks) {
    if (!out.empty()) out += "\n";
    out += "- " + t.id + " [" + std::string(core::to_string(t.status)) + "] " + t.title;
    if (!t.body.empty()) out += "\n" + core::indent_lines(t.body, "    ");
    if (!t.notes.empty()) out += "\n    notes: " + t.notes;
  }
  return out;
}

/// <config dir>/templates/task-section.md when it exists and is readable, else the default.
std::string section_template(const TaskPromptSettings& settings) {
  const auto path = settings.config_dir / "templates" / "task-section.md";
  std::error_code ec;
  if (settings.config_dir.empty() || !std::filesystem::is_regular_file(path, ec)) return default_task_section_template();
  if (std::filesystem::file_size(path, ec) > max_template_bytes || ec) {
    core::log_warn("task section template is too large; using the built-in one", {{"path", path.string()}});
    return default_task_section_template();
  }
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

boost::json::object context_of(const core::Run& run, const std::vector<core::Task>& tasks,
                                const TaskPromptSettings& settings) {
  // In a container this binary's path means nothing: a managed one has it mounted on
  // the image's PATH (environments/container_manager.hpp), an existing one its own.
  const bool in_container = run.frozen.environment && run.frozen.environment->kind == "container";
  return {{"task_list", task_list(tasks)},
          {"agentry", settings.agentry_binary.empty() || in_container ? std::string("agentry")
                                                                      : shell_quote(settings.agentry_binary.string())},
          {"run_id", run.id},
          {"task_count", static_cast<std::int64_t>(tasks.size())},
          {"commands", ""}};
}

}  // namespace

const std::string& default_task_section_template() {
  static const std::string text =
      "## Tasks\n\n"
      "This run is tracked by agentry through {{task_count}} task(s):\n\n"
      "{{task_list}}\n\n" +
      commands_template();
  return text;
}

std::string render_task_section(const core::Run& run, const std::vector<core::Task>& tasks,
                                const TaskPromptSettings& settings) {
  if (!run.frozen.task_prompt || tasks.empty()) return {};
  auto context = context_of(run, tasks, settings);
  context["commands"] = definitions::render_template(commands_template(), context).text;
  auto rendered = definitions::render_template(section_template(settings), context);
  // A user's template naming a key that does not exist keeps it as written (like every
  // template); the daemon's log says so.
  if (!rendered.unknown_keys.empty())
    core::log_warn("the task section template names keys that do not exist",
                   {{"runId", run.id},
                    {"keys", definitions::describe_unknown_keys(rendered.unknown_keys,
                                                                {"task_list", "agentry", "run_id", "task_count",
                                                                 "commands"})}});
  return rendered.text;
}

std::string task_section(store::Transaction& c, const core::Run& run, const TaskPromptSettings& settings) {
  if (!run.frozen.task_prompt) return {};
  return render_task_section(run, c.tasks().list(run.id), settings);
}

std::string task_commands(const core::Run& run, const TaskPromptSettings& settings) {
  if (!run.frozen.task_prompt) return {};
  return definitions::render_template(commands_template(), context_of(run, {}, settings)).text;
}

std::string first_session_prompt(const core::FrozenInputs& frozen, const std::string& section,
                                 const std::string& extra_message) {
  std::string prompt;
  auto add = [&](const std::string& part) {
    if (part.empty()) return;
    if (!prompt.empty()) prompt += "\n\n";
    prompt += part;
  };
  // A first prompt a module prepare hook chose (reinvoke, mutate.run.initialPrompt: the
  // brief is then not the one the texts compose) replaces the texts; the task section
  // still follows it.
  if (has_prepare_at_init(frozen) && frozen.brief != compose_brief(frozen)) {
    add(frozen.brief);
    add(section);
    add(extra_message);
    return prompt;
  }
  add(frozen.agent_instructions);
  add(frozen.assignment_instructions);
  add(section);
  add(frozen.message);
  add(extra_message);
  return prompt;
}

std::string later_session_prompt(const std::string& section, const std::string& message) {
  if (section.empty()) return message;
  if (message.empty()) return section;
  return section + "\n\n" + message;
}

std::string shell_quote(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789/._-+:,@%=") == std::string::npos;
  if (plain) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::filesystem::path agent_runner_link(const std::filesystem::path& agentry_binary) {
  if (agentry_binary.empty()) return {};
  auto link = agentry_binary.parent_path() / "agent-runner";
  std::error_code ec;
  return std::filesystem::exists(link, ec) ? link : std::filesystem::path();
}

std::string agent_runner_command(const std::filesystem::path& agentry_binary) {
  if (auto link = agent_runner_link(agentry_binary); !link.empty()) return shell_quote(link.string());
  if (!agentry_binary.empty()) return shell_quote(agentry_binary.string()) + " agent-runner";
  return "agent-runner";
}

}  // namespace agentry::engine
