#include "engine/hooks/command_hook.hpp"

#include "core/utf8.hpp"
#include "engine/hooks/hook_process.hpp"
#include "process/runner.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>

namespace agentry::engine {
namespace json = boost::json;
namespace {

constexpr std::size_t max_reason_bytes = 4 * 1024;

std::string option(const core::HookSpec& hook, const char* key) {
  const auto* v = hook.options.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::string trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return core::sanitize_utf8(text.substr(0, max_reason_bytes));
}

}  // namespace

std::optional<json::value> run_command_form_hook(const core::Run& run, const core::HookSpec& hook,
                                                 const std::function<std::optional<std::string>()>& cancelled,
                                                 core::HookAudit& audit) {
  process::RunRequest request;
  request.argv.push_back(option(hook, "command"));
  if (const auto* args = hook.options.if_contains("args"); args && args->is_array())
    for (const auto& a : args->as_array())
      if (a.is_string()) request.argv.emplace_back(a.as_string());
  request.env = {{"AGENTRY_RUN_ID", run.id},
                 {"AGENTRY_HOOK_ID", hook.id},
                 {"AGENTRY_HOOK_PHASE", std::string(core::to_string(hook.phase))}};
  std::filesystem::path cwd = run.cwd;
  if (const std::string dir = option(hook, "cwd"); !dir.empty())
    cwd = std::filesystem::path(dir).is_absolute() || run.cwd.empty() ? std::filesystem::path(dir) : cwd / dir;
  std::error_code ec;
  if (!cwd.empty()) {
    if (!std::filesystem::is_directory(cwd, ec)) {
      audit.outcome = "failed";
      audit.message = "its working directory " + cwd.string() + " is not a directory";
      return std::nullopt;
    }
    request.cwd = cwd.lexically_normal().string();
  }
  auto ran = run_hook_process(request, {hook.timeout_sec, hook_max_stdout_bytes, {}}, cancelled, audit);
  if (!ran) return std::nullopt;
  const auto& result = *ran;
  const bool json_mode = option(hook, "mode") == "json";
  const bool task_phase = hook.phase == core::HookPhase::task_transition;
  if (*result.exit_code != 0) {
    if (json_mode) {
      audit.outcome = "failed";
      audit.message = "json mode: the command exited with code " + std::to_string(*result.exit_code);
      return std::nullopt;
    }
    std::string reason = trimmed(result.stderr_text);
    if (reason.empty()) reason = trimmed(result.stdout_text);
    if (reason.empty()) reason = "the command exited with code " + std::to_string(*result.exit_code);
    audit.outcome = "ok";  // a verdict, as agent-runner's: the caller maps it
    if (task_phase) return json::object{{"accept", false}, {"reason", reason}};
    return json::object{{"action", "block"}, {"reason", reason}};
  }
  audit.outcome = "ok";
  if (!json_mode) return json::value(nullptr);
  if (result.stdout_truncated) {
    audit.outcome = "failed";
    audit.message = hook_output_too_long_message();
    return std::nullopt;
  }
  boost::system::error_code parse_error;
  auto value = json::parse(result.stdout_text, parse_error);
  if (parse_error) {
    audit.outcome = "failed";
    audit.message = "json mode: its output is not JSON";
    return std::nullopt;
  }
  return value;
}

}  // namespace agentry::engine
