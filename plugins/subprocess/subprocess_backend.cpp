// The "subprocess" backend: runs a command per attempt (docs/subprocess-protocol.md).
// The C ABI comes from the glue (agentry/plugin/cpp/backend.hpp); the work from Attempt.
#include <optional>
#include <string>
#include <string_view>

#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "attempt.hpp"
#include "config.hpp"
#include "jsonl_protocol.hpp"

namespace agentry::subprocess {

namespace {

class SubprocessBackend final : public agentry::plugin::Backend {
 public:
  using Backend::Backend;
  ~SubprocessBackend() override {  // nothing of the instance runs after this (obligation 10)
    executor_.stop_after([this] {
      if (attempt_) attempt_->abandon();
    });
    attempt_.reset();
  }

  agentry_status_t start(const agentry::plugin::StartParams& params) override {
    if (running()) return AGENTRY_ERR_INVALID_STATE;
    ParsedAttempt parsed = parse_attempt(params);
    if (!parsed.launch) {
      host().log(AGENTRY_LOG_ERROR, "subprocess: run " + params.run_id + ": " + parsed.error);
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    stdin_mode_ = parsed.launch->stdin_mode;
    attempt_ = Attempt::start(host(), executor_, std::move(*parsed.launch));
    return AGENTRY_OK;
  }

  agentry_status_t send_input(const agentry::plugin::Input& input) override {
    if (!running()) return AGENTRY_ERR_INVALID_STATE;
    if (stdin_mode_ != StdinMode::jsonl) {
      host().log(AGENTRY_LOG_WARNING, "subprocess: input needs backendConfig.stdin \"jsonl\"; input dropped");
      return AGENTRY_ERR_UNSUPPORTED;
    }
    std::optional<std::string> line = input_line(input.kind, input.input_id, input.payload_json);
    if (!line) return AGENTRY_ERR_INVALID_ARGUMENT;
    attempt_->write_stdin(std::move(*line));
    return AGENTRY_OK;
  }

  agentry_status_t interrupt(std::string_view reason) override {
    if (running()) attempt_->interrupt(std::string(reason));
    return AGENTRY_OK;
  }

 private:
  bool running() const noexcept { return attempt_ && attempt_->running(); }

  agentry::plugin_common::runtime::Executor executor_;  // first: the attempt runs on it
  std::shared_ptr<Attempt> attempt_;
  StdinMode stdin_mode_ = StdinMode::prompt;
};

constexpr const char* kFeatures[] = {AGENTRY_FEATURE_INTERRUPT, AGENTRY_FEATURE_INPUT, AGENTRY_FEATURE_APPROVALS,
                                     AGENTRY_FEATURE_RESUME, nullptr};

constexpr agentry_backend_descriptor_t kDescriptor{
    AGENTRY_PLUGIN_ABI_VERSION_INIT,
    "subprocess",
    "Subprocess",
    "agentry",
    "0.1.0",
    "Runs a command per attempt; its output becomes events (plain text, or the agentry JSON-lines protocol)",
    kFeatures};

constexpr agentry::plugin::BackendType kTypes[] = {agentry::plugin::backend_type<SubprocessBackend>(kDescriptor)};

}  // namespace

}  // namespace agentry::subprocess

AGENTRY_PLUGIN_DEFINE_ENTRY(agentry::subprocess::kTypes);
