#include "engine/queued_delivery.hpp"

#include "core/lifecycle.hpp"
#include "engine/mutation_support.hpp"
#include "store/queued_message_repository.hpp"
#include "store/run_repository.hpp"
#include "store/transaction.hpp"

namespace agentry::engine::detail {

std::string join_queued_texts(const std::vector<core::QueuedMessage>& messages) {
  std::string out;
  for (const auto& m : messages) {
    if (!out.empty()) out += "\n\n";
    out += m.text;
  }
  return out;
}

boost::json::object queued_session_source(const std::vector<core::QueuedMessage>& messages) {
  boost::json::array sources;
  for (const auto& m : messages)
    if (m.source.contains("kind")) sources.push_back(m.source);
  if (sources.empty()) return {};
  return {{"kind", "queued_messages"}, {"sources", std::move(sources)}};
}

// A budget stop waits for the user too: queued messages must not spend past it.
bool delivers_queue(const std::string& ended_by) {
  return ended_by != "user" && ended_by != "shutdown" && ended_by != "budget";
}

std::optional<std::string> deliver_queued_messages(store::Transaction& c, core::Run& run,
                                                   const std::string& controller_id, const Actor& actor,
                                                   bool recovered, const TaskPromptSettings* tasks) {
  if (!core::is_terminal(run.status) || core::refusal(core::Operation::resume, core::facts_of(run))) return std::nullopt;
  auto messages = c.queued_messages().list(run.id);
  if (messages.empty()) return std::nullopt;
  std::string prompt = join_queued_texts(messages);
  if (tasks) prompt = later_session_prompt(task_section(c, run, *tasks), prompt);
  open_session(c, run, prompt, controller_id, queued_session_source(messages));
  if (run.frozen.backend != core::passive_backend) open_attempt(c, run);
  const int count = c.queued_messages().remove_all(run.id);
  run.queued_message_count = 0;
  boost::json::object data{{"sessionIndex", run.session_count - 1},
                           {"backend", run.frozen.backend},
                           {"source", "queued_messages"},
                           {"count", count},
                           {"length", prompt.size()}};
  if (recovered) data["recovered"] = true;
  append_audit(c, run.id, "run.resumed", actor, std::move(data));
  return prompt;
}

std::optional<std::string> resume_with_queue(store::Transaction& c, core::Run& run, const std::string& controller_id,
                                             const Actor& actor, bool recovered, const TaskPromptSettings* tasks) {
  auto prompt = deliver_queued_messages(c, run, controller_id, actor, recovered, tasks);
  if (!prompt) return std::nullopt;
  touch(run);
  c.runs().update(run);
  return prompt;
}

}  // namespace agentry::engine::detail
