#include "client.hpp"

#include <utility>

#include <boost/json.hpp>

#include "agentry/plugin/events.h"
#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::acp {

namespace json = boost::json;
using plugin_common::object_field;
using plugin_common::text_field;
using plugin_common::WaitStatus;
using plugin_common::runtime::Child;
using plugin_common::runtime::ChildHandlers;
using plugin_common::runtime::ChildSpec;
using plugin_common::runtime::RpcError;

namespace {

constexpr int64_t kProtocolVersion = 1;
constexpr int64_t kAuthRequired = -32000;
// How long an agent may take to exit once its work is done and its stdin is closed.
constexpr std::chrono::milliseconds kExitGrace{3000};

json::array text_prompt(const std::string& text) { return json::array{json::object{{"type", "text"}, {"text", text}}}; }

}  // namespace

Client::Client(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor, Launch launch)
    : host_(host),
      executor_(executor),
      launch_(std::move(launch)),
      events_(host, "acp"),
      rpc_([this](std::string line) {
        if (child_ && !child_->write(std::move(line)))
          host_.log(AGENTRY_LOG_WARNING, "acp: the agent does not read its stdin; a message was dropped");
      }),
      ending_(executor, events_, follow_ups_, child_,
              {.child = "the agent",
               .work = "the turn ended",
               .stderr_name = "its last output",
               .exit_grace = kExitGrace},
              [this](const std::string& outcome, const std::string& message, std::optional<int> exit_code) {
                if (!question_) return events_.finish(outcome, message, exit_code);
                question_->send(host_, outcome, message);
              }) {}

std::shared_ptr<Client> Client::start(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor,
                                      Launch launch) {
  std::shared_ptr<Client> client(new Client(host, executor, std::move(launch)));
  executor.post([client] { client->begin(); });
  return client;
}

std::shared_ptr<Client> Client::ask(agentry::plugin::Host& host, plugin_common::runtime::Executor& executor,
                                    Launch launch, std::string ask_id) {
  std::shared_ptr<Client> client(new Client(host, executor, std::move(launch)));
  client->question_.emplace(std::move(ask_id), "acp");
  executor.post([client] { client->begin(); });
  return client;
}

void Client::emit(const Event& event) {
  if (!question_) return events_.emit(event);
  question_->take(event);
}

void Client::begin() {
  const plugin_common::ResolvedProgram program =
      plugin_common::resolve_program(launch_.argv.front(), launch_.env, launch_.cwd);
  if (program.path.empty())
    return ending_.finish("error",
                          "cannot start the agent: " + program.error +
                              " (is the agent installed for the user the daemon runs as? backendConfig.acp.command "
                              "names it; see docs/backends/acp.md)",
                          std::nullopt);
  if (std::string bad = plugin_common::check_workspace(launch_.cwd); !bad.empty())
    return ending_.finish("error", "cannot start the agent: " + bad, std::nullopt);
  std::weak_ptr<Client> weak = weak_from_this();
  ChildHandlers handlers;
  handlers.stdout_line = [weak](plugin_common::Line line) {
    if (auto self = weak.lock()) {
      if (line.dropped > 0) {
        self->events_.notice("warning", "acp: dropped a message of more than 16 MiB from the agent");
        return;
      }
      self->rpc_.receive(line.text);
    }
  };
  handlers.exited = [weak](WaitStatus status) {
    if (auto self = weak.lock()) self->on_exit(status);
  };
  try {
    child_ = Child::spawn(executor_.get_executor(),
                          ChildSpec{program.path, launch_.argv, launch_.env, launch_.cwd}, std::move(handlers));
  } catch (const std::system_error& e) {
    return ending_.finish("error", "cannot start the agent '" + launch_.argv.front() + "': " + e.what(), std::nullopt);
  }
  host_.log(AGENTRY_LOG_INFO, "acp: started pid " + std::to_string(child_->pid()) + ": " + launch_.argv.front());
  rpc_.on_request([weak](const json::value& id, std::string_view method, const json::value& params) {
    if (auto self = weak.lock()) self->on_request(id, method, params);
  });
  rpc_.on_notification([weak](std::string_view method, const json::value& params) {
    if (auto self = weak.lock()) self->on_notification(method, params);
  });
  rpc_.on_noise([weak](std::string_view line, std::string_view why) {
    if (auto self = weak.lock())
      self->host_.log(AGENTRY_LOG_WARNING,
                      "acp: ignored a line from the agent (" + std::string(why) + "): " + std::string(line.substr(0, 200)));
  });
  initialize();
}

void Client::initialize() {
  json::object params{{"protocolVersion", kProtocolVersion},
                      {"clientCapabilities",
                       json::object{{"fs", json::object{{"readTextFile", false}, {"writeTextFile", false}}},
                                    {"terminal", false}}},
                      {"clientInfo", json::object{{"name", "agentry"}, {"version", "0.1.0"}}}};
  rpc_.request("initialize", std::move(params), [this](const json::value* result, const RpcError* error) {
    if (error) return ending_.conclude("error", failure("the agent refused initialize", error));
    open_session(*result);
  });
}

void Client::open_session(const json::value& init_result) {
  const json::object* caps = object_field(init_result.if_object(), "agentCapabilities");
  if (launch_.resume_session.empty()) return new_session({});
  const json::object* session_caps = object_field(caps, "sessionCapabilities");
  if (question_) {
    // A question never touches the run's session: a fork of it, or a fresh one.
    if (!session_caps || !session_caps->if_contains("fork") || session_caps->at("fork").is_null()) return new_session({});
    json::object params{{"sessionId", launch_.resume_session}, {"cwd", launch_.cwd}, {"mcpServers", launch_.mcp_servers}};
    rpc_.request("session/fork", std::move(params), [this](const json::value* result, const RpcError* error) {
      const std::string id = result ? text_field(result->if_object(), "sessionId") : std::string();
      if (error || id.empty()) return new_session({});
      session_ready(id);
    });
    return;
  }
  const json::value* load = caps ? caps->if_contains("loadSession") : nullptr;
  const bool can_resume = session_caps && session_caps->if_contains("resume") && !session_caps->at("resume").is_null();
  const bool can_load = load && load->is_bool() && load->get_bool();
  if (!can_resume && !can_load)
    return new_session("the agent cannot resume a session (it offers neither session/resume nor session/load): "
                       "a new session starts, and the agent does not remember the earlier conversation");
  const char* method = can_resume ? "session/resume" : "session/load";
  loading_ = !can_resume;
  json::object params{{"sessionId", launch_.resume_session}, {"cwd", launch_.cwd}, {"mcpServers", launch_.mcp_servers}};
  rpc_.request(method, std::move(params), [this, method](const json::value*, const RpcError* error) {
    loading_ = false;
    translator_ = Translator{};  // whatever the replay left open is history, not this turn
    if (error)
      return new_session("the agent could not reopen session " + launch_.resume_session + " (" +
                         failure(method, error) + "): a new session starts without the earlier conversation");
    session_ready(launch_.resume_session);
  });
}

void Client::new_session(std::string notice) {
  if (!notice.empty() && !question_) events_.notice("warning", notice);
  json::object params{{"cwd", launch_.cwd}, {"mcpServers", launch_.mcp_servers}};
  rpc_.request("session/new", std::move(params), [this](const json::value* result, const RpcError* error) {
    if (error && error->code == kAuthRequired && !launch_.auth_method.empty() && !authenticated_) {
      // Authenticate with the configured method, then try once more.
      rpc_.request("authenticate", json::object{{"methodId", launch_.auth_method}},
                   [this](const json::value*, const RpcError* auth_error) {
                     if (auth_error) return ending_.conclude("error", failure("authentication failed", auth_error));
                     authenticated_ = true;
                     new_session({});
                   });
      return;
    }
    if (error) {
      std::string why = failure("the agent refused session/new", error);
      if (error->code == kAuthRequired)
        why += " (the agent wants authentication: log it in as the user the daemon runs as, give it an API key "
               "through backendConfig.acp.env, or name one of its auth methods in backendConfig.acp.authMethod)";
      return ending_.conclude("error", why);
    }
    const std::string id = text_field(result->if_object(), "sessionId");
    if (id.empty()) return ending_.conclude("error", "the agent's session/new answer has no sessionId");
    session_ready(id);
  });
}

void Client::session_ready(std::string session_id) {
  session_id_ = std::move(session_id);
  if (!question_) emit(Event{AGENTRY_EVENT_CHECKPOINT, 0, json::object{{"resumeToken", session_id_}}});
  if (interrupted_) return ending_.conclude("interrupted", "interrupted before the first prompt");
  prompt(launch_.prompt);
}

void Client::prompt(std::string text) {
  prompting_ = true;
  rpc_.request("session/prompt", json::object{{"sessionId", session_id_}, {"prompt", text_prompt(text)}},
               [this](const json::value* result, const RpcError* error) { prompt_ended(result, error); });
}

void Client::prompt_ended(const json::value* result, const RpcError* error) {
  prompting_ = false;
  const std::string stop = result ? text_field(result->if_object(), "stopReason") : std::string();
  for (const Event& event : translator_.end_turn(interrupted_ ? "declined" : "failed")) emit(event);
  if (interrupted_) return ending_.conclude("interrupted", "interrupted");
  if (error) return ending_.conclude("error", failure("the turn failed", error));
  if (const json::object* usage = object_field(result->if_object(), "usage")) {
    json::object tokens;
    if (auto v = plugin_common::int_field(usage, "inputTokens")) tokens["inputTokens"] = *v;
    if (auto v = plugin_common::int_field(usage, "outputTokens")) tokens["outputTokens"] = *v;
    if (auto v = plugin_common::int_field(usage, "cachedReadTokens")) tokens["cachedInputTokens"] = *v;
    if (auto v = plugin_common::int_field(usage, "thoughtTokens")) tokens["reasoningTokens"] = *v;
    if (!tokens.empty()) emit(Event{AGENTRY_EVENT_USAGE, 0, std::move(tokens)});
  }
  if (stop == "refusal") return ending_.conclude("error", "the agent refused the prompt");
  if (stop == "max_tokens" || stop == "max_turn_requests")
    events_.notice("warning", "the agent stopped the turn early: " + stop);
  if (std::optional<std::string> next = follow_ups_.next_or_close()) return prompt(std::move(*next));
  ending_.conclude("success", {});
}

void Client::on_request(const json::value& id, std::string_view method, const json::value& params) {
  if (method != "session/request_permission") {
    // No fs/* or terminal/*: the client advertised neither, so the agent uses its own tools.
    rpc_.respond_error(id, RpcError::kMethodNotFound, "method not found: " + std::string(method));
    return;
  }
  if (interrupted_ || ending_.concluded() || question_) {  // a question is answered without tools
    const std::string reject = question_ ? Translator::choose_option(params, false) : std::string();
    if (!reject.empty())
      rpc_.respond(id, json::object{{"outcome", json::object{{"outcome", "selected"}, {"optionId", reject}}}});
    else
      rpc_.respond(id, json::object{{"outcome", json::object{{"outcome", "cancelled"}}}});
    return;
  }
  if (launch_.unrestricted) {
    const std::string option = Translator::choose_option(params, true);
    if (!option.empty()) {
      rpc_.respond(id, json::object{{"outcome", json::object{{"outcome", "selected"}, {"optionId", option}}}});
      return;
    }
  }
  const std::string approval_id = "acp-" + (id.is_string() ? std::string(id.get_string()) : json::serialize(id));
  approvals_[approval_id] = WaitingApproval{id, params};
  {
    std::lock_guard lock(mutex_);
    open_approval_ids_.insert(approval_id);
  }
  emit(Translator::approval(approval_id, params));
}

agentry_status_t Client::answer_approval(const std::string& approval_id, bool approve) {
  {
    std::lock_guard lock(mutex_);
    if (open_approval_ids_.erase(approval_id) == 0) return AGENTRY_ERR_NOT_FOUND;
  }
  executor_.post([self = shared_from_this(), approval_id, approve] {
    auto found = self->approvals_.find(approval_id);
    if (found == self->approvals_.end()) return;
    const WaitingApproval waiting = std::move(found->second);
    self->approvals_.erase(found);
    const std::string option = Translator::choose_option(waiting.params, approve);
    const json::value& id = waiting.request_id;
    if (option.empty())
      self->rpc_.respond(id, json::object{{"outcome", json::object{{"outcome", "cancelled"}}}});
    else
      self->rpc_.respond(id, json::object{{"outcome", json::object{{"outcome", "selected"}, {"optionId", option}}}});
  });
  return AGENTRY_OK;
}

void Client::cancel_approvals() {
  for (auto& [approval_id, waiting] : approvals_)
    rpc_.respond(waiting.request_id, json::object{{"outcome", json::object{{"outcome", "cancelled"}}}});
  approvals_.clear();
  std::lock_guard lock(mutex_);
  open_approval_ids_.clear();
}

void Client::on_notification(std::string_view method, const json::value& params) {
  if (method != "session/update" || loading_) return;
  if (text_field(params.if_object(), "sessionId") != session_id_ && !session_id_.empty()) return;
  for (const Event& event : translator_.update(params)) emit(event);
}

agentry_status_t Client::send_message(std::string text) {
  return follow_ups_.add(std::move(text)) ? AGENTRY_OK : AGENTRY_ERR_INVALID_STATE;
}

void Client::interrupt(std::string reason) {
  executor_.post([self = shared_from_this(), reason = std::move(reason)] { self->do_interrupt(reason); });
}

void Client::do_interrupt(const std::string& reason) {
  if (interrupted_ || ending_.finished()) return;
  interrupted_ = true;
  host_.log(AGENTRY_LOG_INFO, "acp: interrupt: " + reason);
  follow_ups_.close();
  cancel_approvals();
  if (!prompting_ || session_id_.empty()) return ending_.conclude("interrupted", "interrupted");
  rpc_.notify("session/cancel", json::object{{"sessionId", session_id_}});
  ending_.expect_stop_within(launch_.interrupt_grace,
                             "interrupted; the agent did not end its turn within the grace period");
}

void Client::on_exit(WaitStatus status) {
  rpc_.fail_pending(RpcError{RpcError::kPeerGone, "the agent exited", {}});
  for (const Event& event : translator_.end_turn(interrupted_ ? "declined" : "failed")) emit(event);
  ending_.exited(status, interrupted_);
}

std::string Client::failure(const std::string& what, const RpcError* error) const {
  std::string why = what + ": " + (error->message.empty() ? "error " + std::to_string(error->code) : error->message);
  if (!error->data.is_null()) why += " (" + json::serialize(error->data).substr(0, 500) + ")";
  if (error->code == RpcError::kPeerGone && child_ && !child_->stderr_tail().empty())
    why += "; its last output: " + child_->stderr_tail();
  return why;
}

void Client::abandon() noexcept {
  if (question_) question_->drop();
  ending_.abandon();
  rpc_.fail_pending(RpcError{RpcError::kPeerGone, "the backend was torn down", {}});
}

}  // namespace agentry::acp
