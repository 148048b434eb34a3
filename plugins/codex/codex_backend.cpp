// The "codex" backend: drives `codex app-server` (docs/backends/codex.md). The C ABI
// comes from the glue (agentry/plugin/cpp/backend.hpp); one Session per attempt, all on
// the instance's executor.
#include <boost/json.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin/cpp/detach.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "config.hpp"
#include "question.hpp"
#include "session.hpp"

namespace agentry::codex {

namespace {

namespace json = boost::json;

// A string field of a send_input payload, or nullopt.
std::optional<std::string> field(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string(v->get_string());
}

class CodexBackend final : public agentry::plugin::Backend,
                           public agentry::plugin::Detachable,
                           public agentry::plugin::Askable {
 public:
  using Backend::Backend;
  // Obligation 10: nothing of this instance runs after destroy returns.
  ~CodexBackend() override {
    executor_.stop_after([this] {
      if (session_) session_->abandon();
      if (question_) question_->abandon();
    });
    session_.reset();
    question_.reset();
  }

  // A fresh instance answers one question from a fork of the run's thread (ext/ask.h).
  agentry_status_t ask(std::string ask_id, std::string request_json) override {
    if (session_ || question_) return AGENTRY_ERR_INVALID_STATE;
    std::string why;
    std::optional<AttemptConfig> config = Question::config_for(request_json, why);
    if (!config) {
      host().log(AGENTRY_LOG_ERROR, "codex: cannot ask: " + why);
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    question_ = std::make_unique<Question>(host().raw(), executor_, std::move(ask_id), std::move(*config));
    return AGENTRY_OK;
  }

  agentry_status_t start(const agentry::plugin::StartParams& params) override {
    return begin(params, AttemptMode::start);
  }

  // ws/uds only: with stdio the app-server was our child, and is gone with its parent.
  agentry_status_t adopt(const agentry::plugin::StartParams& params) override {
    return begin(params, AttemptMode::adopt);
  }

  agentry_status_t detach(std::string_view reason) override {
    if (!session_ || !session_->running()) return AGENTRY_ERR_INVALID_STATE;
    return session_->detach(std::string(reason));
  }

  const void* get_extension(std::string_view id) noexcept override {
    if (const void* table = agentry::plugin::detach_extension_for(id)) return table;
    return agentry::plugin::ask_extension_for(id);
  }

  agentry_status_t send_input(const agentry::plugin::Input& input) override {
    if (!session_ || !session_->running()) return AGENTRY_ERR_INVALID_STATE;
    boost::system::error_code ec;
    json::value value = json::parse(input.payload_json, ec);
    if (ec || !value.is_object()) return AGENTRY_ERR_INVALID_ARGUMENT;
    const json::object& payload = value.get_object();
    if (input.kind == AGENTRY_INPUT_MESSAGE) {
      std::optional<std::string> text = field(payload, "text");
      if (!text || text->empty()) return AGENTRY_ERR_INVALID_ARGUMENT;
      session_->send_message(std::move(*text));
      return AGENTRY_OK;
    }
    if (input.kind == AGENTRY_INPUT_APPROVAL) {
      const std::optional<std::string> id = field(payload, "approvalId");
      const std::optional<std::string> decision = field(payload, "decision");
      if (!id || !decision || (*decision != "approve" && *decision != "deny")) return AGENTRY_ERR_INVALID_ARGUMENT;
      return session_->answer_approval(*id, *decision == "approve");
    }
    return AGENTRY_ERR_UNSUPPORTED;
  }

  agentry_status_t interrupt(std::string_view reason) override {
    if (session_ && session_->running()) session_->interrupt(std::string(reason));
    return AGENTRY_OK;
  }

 private:
  agentry_status_t begin(const agentry::plugin::StartParams& params, AttemptMode mode) {
    if ((session_ && session_->running()) || question_) return AGENTRY_ERR_INVALID_STATE;
    ParsedConfig parsed = parse_config(params, mode);
    if (!parsed.config) {
      host().log(AGENTRY_LOG_ERROR, "codex: run " + params.run_id + ": " + parsed.error);
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    if (mode == AttemptMode::adopt && parsed.config->transport == Transport::stdio) return AGENTRY_ERR_UNSUPPORTED;
    session_ = Session::start(host(), executor_, std::move(*parsed.config));
    return AGENTRY_OK;
  }

  plugin_common::runtime::Executor executor_;  // first: the sessions run on it
  std::shared_ptr<Session> session_;
  std::unique_ptr<Question> question_;
};

constexpr const char* kFeatures[] = {AGENTRY_FEATURE_RESUME, AGENTRY_FEATURE_INTERRUPT, AGENTRY_FEATURE_APPROVALS,
                                     AGENTRY_FEATURE_INPUT,  AGENTRY_FEATURE_DETACH,    AGENTRY_FEATURE_ASK,
                                     nullptr};

constexpr agentry_backend_descriptor_t kDescriptor{
    AGENTRY_PLUGIN_ABI_VERSION_INIT,
    "codex",
    "Codex",
    "agentry",
    "0.1.0",
    "Drives OpenAI Codex through `codex app-server` (JSON-RPC over stdio, WebSocket or a Unix socket)",
    kFeatures};

constexpr agentry::plugin::BackendType kTypes[] = {agentry::plugin::backend_type<CodexBackend>(kDescriptor)};

}  // namespace

}  // namespace agentry::codex

AGENTRY_PLUGIN_DEFINE_ENTRY(agentry::codex::kTypes);
