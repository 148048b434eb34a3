// The "acp" backend: any agent that speaks the Agent Client Protocol on stdio (Gemini CLI,
// Qwen Code, OpenCode, Claude Code through its ACP adapter, ...) as an agentry backend
// (docs/backends/acp.md). The C ABI comes from the glue; the work from Client.
#include <memory>
#include <string>
#include <string_view>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin_common/side_question.hpp"
#include "agentry/plugin_common/input_fields.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "client.hpp"
#include "launch.hpp"

namespace agentry::acp {

namespace {

class AcpBackend final : public agentry::plugin::Backend, public agentry::plugin::Askable {
 public:
  using Backend::Backend;
  // Obligation 10: nothing of this instance runs after destroy returns.
  ~AcpBackend() override {
    executor_.stop_after([this] {
      if (client_) client_->abandon();
    });
    client_.reset();
  }

  // A fresh instance answers one question, never started (ext/ask.h).
  agentry_status_t ask(std::string ask_id, std::string request_json) override {
    if (client_) return AGENTRY_ERR_INVALID_STATE;
    std::string why;
    std::optional<agentry::plugin::StartParams> params = plugin_common::side_question_params(request_json, why);
    ParsedLaunch parsed = params ? parse_launch(*params) : ParsedLaunch{std::nullopt, why};
    if (!parsed.launch) {
      host().log(AGENTRY_LOG_ERROR, "acp: cannot ask: " + parsed.error);
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    client_ = Client::ask(host(), executor_, std::move(*parsed.launch), std::move(ask_id));
    return AGENTRY_OK;
  }
  const void* get_extension(std::string_view id) noexcept override { return agentry::plugin::ask_extension_for(id); }

  agentry_status_t start(const agentry::plugin::StartParams& params) override {
    if (client_ && client_->running()) return AGENTRY_ERR_INVALID_STATE;
    ParsedLaunch parsed = parse_launch(params);
    if (!parsed.launch) {
      host().log(AGENTRY_LOG_ERROR, "acp: run " + params.run_id + ": " + parsed.error);
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    client_ = Client::start(host(), executor_, std::move(*parsed.launch));
    return AGENTRY_OK;
  }

  agentry_status_t send_input(const agentry::plugin::Input& input) override {
    if (!client_ || !client_->running()) return AGENTRY_ERR_INVALID_STATE;
    const plugin_common::InputFields in = plugin_common::read_input(input, true);
    if (in.status != AGENTRY_OK) return in.status;
    if (input.kind == AGENTRY_INPUT_MESSAGE) return client_->send_message(in.text);
    return client_->answer_approval(in.approval_id, in.approve);
  }

  agentry_status_t interrupt(std::string_view reason) override {
    if (client_ && client_->running()) client_->interrupt(std::string(reason));
    return AGENTRY_OK;
  }

 private:
  plugin_common::runtime::Executor executor_;  // first: the client runs on it
  std::shared_ptr<Client> client_;
};

constexpr const char* kFeatures[] = {AGENTRY_FEATURE_RESUME,    AGENTRY_FEATURE_INTERRUPT, AGENTRY_FEATURE_INPUT,
                                     AGENTRY_FEATURE_APPROVALS, AGENTRY_FEATURE_ASK,       nullptr};

constexpr agentry_backend_descriptor_t kDescriptor{
    AGENTRY_PLUGIN_ABI_VERSION_INIT,
    "acp",
    "Agent Client Protocol",
    "agentry",
    "0.1.0",
    "Runs any agent that speaks the Agent Client Protocol on stdio (Gemini CLI, Qwen Code, OpenCode, Claude Code "
    "through its adapter): streamed text and thoughts, tools, plans, approvals, interrupt, resume",
    kFeatures};

constexpr agentry::plugin::BackendType kTypes[] = {agentry::plugin::backend_type<AcpBackend>(kDescriptor)};

}  // namespace

}  // namespace agentry::acp

AGENTRY_PLUGIN_DEFINE_ENTRY(agentry::acp::kTypes);
