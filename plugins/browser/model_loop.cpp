#include "browser/model_loop.hpp"

#include <agentry/plugin/plugin.h>

#include <boost/json/serialize.hpp>

#include "browser/browser_tools.hpp"
#include "browser/conversation.hpp"
#include "browser/model_client.hpp"

namespace agentry::browser {
namespace json = boost::json;

namespace {

std::string item_id(const char* kind, uint32_t attempt, std::size_t n) {
  return std::string(kind) + "-" + std::to_string(attempt) + "-" + std::to_string(n);
}

void say(const LoopHost& host, const std::string& text, const std::string& id) {
  host.send(AGENTRY_EVENT_MESSAGE_COMPLETED, {{"text", text}, {"itemId", id}, {"role", "assistant"}});
}

void refuse_call(const LoopHost& host, const ToolCall& call, const std::string& why) {
  host.send(AGENTRY_EVENT_TOOL_STARTED, {{"toolCallId", call.id}, {"tool", "browser"}, {"command", call.name},
                                         {"input", call.arguments}});
  host.send(AGENTRY_EVENT_TOOL_COMPLETED,
            {{"toolCallId", call.id}, {"tool", "browser"}, {"status", "failed"}, {"output", why}});
}

}  // namespace

boost::asio::awaitable<std::pair<std::string, std::string>> run_model_loop(const LoopInput& in, const LoopHost& host) {
  using Outcome = std::pair<std::string, std::string>;
  Conversation conversation;
  if (in.resumed) {
    std::string why;
    auto saved = load_conversation(in.conversation_path, why);
    if (!saved) {
      host.send(AGENTRY_EVENT_NOTICE, {{"level", "warning"}, {"message", "starting a new conversation: " + why}});
    } else {
      conversation = std::move(*saved);
      if (!conversation.empty())
        host.send(AGENTRY_EVENT_NOTICE,
                  {{"level", "info"},
                   {"message", "continuing the model conversation (" + std::to_string(conversation.size()) + " messages)"}});
    }
  }
  conversation.push_back(Message{Message::Role::user, in.prompt, {}, {}, false, std::nullopt});
  const auto save = [&]() -> std::string {
    std::string why = save_conversation(in.conversation_path, conversation);
    if (!why.empty()) host.send(AGENTRY_EVENT_NOTICE, {{"level", "warning"}, {"message", "the conversation was not saved: " + why}});
    return why;
  };
  save();
  std::size_t actions = 0;
  const std::string system = model_mode_system_prompt();
  const std::vector<ToolSpec> tools = browser_tools();
  for (int step = 1; step <= in.model.max_steps; ++step) {
    if (host.stopping()) co_return Outcome{"interrupted", ""};
    ModelReply reply = co_await call_model(host.io, in.model, system, conversation, tools, host.model_call);
    if (reply.cancelled || host.stopping()) co_return Outcome{"interrupted", ""};
    if (!reply.error.empty()) {
      const std::string message = "model call " + std::to_string(step) + " failed: " + reply.error;
      host.send(AGENTRY_EVENT_NOTICE, {{"level", "error"}, {"message", message}});
      co_return Outcome{"error", message};
    }
    if (!reply.usage.empty()) host.send(AGENTRY_EVENT_USAGE, reply.usage.to_event());
    for (std::size_t i = 0; i < reply.calls.size(); ++i)  // results must name their call: never leave an id empty
      if (reply.calls[i].id.empty()) reply.calls[i].id = item_id("call", in.attempt_number, step * 100 + i);
    conversation.push_back(Message{Message::Role::assistant, reply.text, reply.calls, {}, false, std::nullopt});
    if (reply.calls.empty()) {
      // A reply without a tool call is the model's last word.
      save();
      if (reply.text.empty()) {
        const std::string message = "model call " + std::to_string(step) + " answered with neither text nor a tool call";
        host.send(AGENTRY_EVENT_NOTICE, {{"level", "error"}, {"message", message}});
        co_return Outcome{"error", message};
      }
      say(host, reply.text, item_id("model", in.attempt_number, step));
      co_return Outcome{"success", ""};
    }
    if (!reply.text.empty()) say(host, reply.text, item_id("model", in.attempt_number, step));
    std::optional<std::string> summary;
    std::string fatal;
    for (const ToolCall& call : reply.calls) {
      Message result{Message::Role::tool, {}, {}, call.id, false, std::nullopt};
      std::string why;
      if (summary || !fatal.empty()) {
        // Every call needs a result in the conversation, even one that was never run.
        result.text = summary ? "not run: the task was already finished" : "not run: the attempt stopped";
        result.is_error = true;
      } else if (auto s = step_of(call, why); !s) {
        refuse_call(host, call, why);
        result.text = "refused: " + why;
        result.is_error = true;
      } else if (s->action == "finish") {
        summary = std::string(s->args.at("summary").as_string());
        result.text = "finished";
      } else {
        const ToolOutcome outcome = co_await host.run_tool(*s, ++actions, call.id);
        result.text = outcome.ok ? outcome.output : "failed: " + outcome.output;
        result.is_error = !outcome.ok;
        if (outcome.fatal) fatal = outcome.output;
      }
      conversation.push_back(std::move(result));
    }
    save();
    if (host.stopping()) co_return Outcome{"interrupted", ""};
    if (!fatal.empty()) {
      const std::string message = "the browser failed: " + fatal;
      host.send(AGENTRY_EVENT_NOTICE, {{"level", "error"}, {"message", message}});
      co_return Outcome{"error", message};
    }
    if (summary) {
      say(host, *summary, item_id("finish", in.attempt_number, step));
      co_return Outcome{"success", ""};
    }
  }
  const std::string message = "the model did not finish within maxSteps (" + std::to_string(in.model.max_steps) +
                              " model calls); resume the run to let it go on";
  host.send(AGENTRY_EVENT_NOTICE, {{"level", "error"}, {"message", message}});
  co_return Outcome{"error", message};
}

}  // namespace agentry::browser
