// The "claude" backend: Claude Code's stream-json CLI as an agentry backend
// (docs/backends/claude.md). The C ABI comes from the glue; the work from Attempt.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/parse.hpp>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin_common/input_fields.hpp"
#include "attempt.hpp"
#include "config.hpp"
#include "question.hpp"

namespace agentry::claude {

namespace {

namespace json = boost::json;

class ClaudeBackend final : public agentry::plugin::Backend, public agentry::plugin::Askable {
 public:
  using Backend::Backend;
  ~ClaudeBackend() override {  // nothing of the instance runs after this (obligation 10)
    executor_.stop_after([this] {
      if (question_) question_->abandon();
      if (attempt_) attempt_->abandon();
    });
    question_.reset();
    attempt_.reset();
  }

  // A fresh instance answers one question, never started (ext/ask.h).
  agentry_status_t ask(std::string ask_id, std::string request_json) override {
    if (attempt_ || question_) return AGENTRY_ERR_INVALID_STATE;
    std::string why;
    std::optional<LaunchSpec> launch = Question::launch_for(request_json, why);
    if (!launch) {
      host().log(AGENTRY_LOG_ERROR, "claude: cannot ask: " + why);
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    question_ = Question::start(host(), executor_, std::move(ask_id), std::move(*launch));
    return AGENTRY_OK;
  }
  const void* get_extension(std::string_view id) noexcept override { return agentry::plugin::ask_extension_for(id); }

  agentry_status_t start(const agentry::plugin::StartParams& params) override {
    if ((attempt_ && attempt_->running()) || question_) return AGENTRY_ERR_INVALID_STATE;
    ParsedLaunch parsed = parse_launch(params);
    if (!parsed.launch) {
      host().log(AGENTRY_LOG_ERROR, "claude: run " + params.run_id + ": " + parsed.error);
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    attempt_ = Attempt::start(host(), executor_, std::move(*parsed.launch));
    return AGENTRY_OK;
  }

  agentry_status_t send_input(const agentry::plugin::Input& input) override {
    if (!attempt_ || !attempt_->running()) return AGENTRY_ERR_INVALID_STATE;
    const plugin_common::InputFields in = plugin_common::read_input(input, true);
    if (in.status != AGENTRY_OK) return in.status;
    if (input.kind == AGENTRY_INPUT_MESSAGE) return attempt_->send_message(in.text);
    return attempt_->answer_approval(in.approval_id, in.approve);
  }

  agentry_status_t interrupt(std::string_view reason) override {
    if (attempt_ && attempt_->running()) attempt_->interrupt(reason);
    return AGENTRY_OK;
  }

 private:
  agentry::plugin_common::runtime::Executor executor_;  // first: the attempt and the question run on it
  std::shared_ptr<Attempt> attempt_;
  std::shared_ptr<Question> question_;
};

constexpr const char* kFeatures[] = {AGENTRY_FEATURE_RESUME,    AGENTRY_FEATURE_INTERRUPT, AGENTRY_FEATURE_INPUT,
                                     AGENTRY_FEATURE_APPROVALS, AGENTRY_FEATURE_ASK,       nullptr};

constexpr agentry_backend_descriptor_t kDescriptor{
    AGENTRY_PLUGIN_ABI_VERSION_INIT,
    "claude",
    "Claude Code",
    "agentry",
    "0.1.0",
    "Runs Claude Code (claude -p, stream-json) per attempt: streamed text, tools, approvals, interrupt, resume",
    kFeatures};

constexpr agentry::plugin::BackendType kTypes[] = {agentry::plugin::backend_type<ClaudeBackend>(kDescriptor)};

}  // namespace

}  // namespace agentry::claude

AGENTRY_PLUGIN_DEFINE_ENTRY(agentry::claude::kTypes);
