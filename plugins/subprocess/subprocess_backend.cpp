// The "subprocess" backend: runs a command per attempt (docs/subprocess-protocol.md).
// The C ABI comes from the glue (agentry/plugin/cpp/backend.hpp); the work from Runner.
#include <optional>
#include <string>
#include <string_view>

#include "agentry/plugin/cpp/backend.hpp"
#include "config.hpp"
#include "jsonl_protocol.hpp"
#include "runner.hpp"

namespace agentry::subprocess {

namespace {

class SubprocessBackend final : public agentry::plugin::Backend {
 public:
  explicit SubprocessBackend(const agentry_host_t* host) : Backend(host), runner_(this->host()) {}
  ~SubprocessBackend() override { runner_.shutdown(); }

  agentry_status_t start(const agentry::plugin::StartParams& params) override {
    if (runner_.running()) return AGENTRY_ERR_INVALID_STATE;
    ParsedAttempt parsed = parse_attempt(params);
    if (!parsed.spec) {
      host().log(AGENTRY_LOG_ERROR, "subprocess: run " + params.run_id + ": " + parsed.error);
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    stdin_mode_ = parsed.spec->stdin_mode;
    runner_.start(std::move(*parsed.spec));
    return AGENTRY_OK;
  }

  agentry_status_t send_input(const agentry::plugin::Input& input) override {
    if (!runner_.running()) return AGENTRY_ERR_INVALID_STATE;
    if (stdin_mode_ != StdinMode::jsonl) {
      host().log(AGENTRY_LOG_WARNING, "subprocess: input needs backendConfig.stdin \"jsonl\"; input dropped");
      return AGENTRY_ERR_UNSUPPORTED;
    }
    std::optional<std::string> line = input_line(input.kind, input.input_id, input.payload_json);
    if (!line) return AGENTRY_ERR_INVALID_ARGUMENT;
    runner_.write_stdin(std::move(*line));
    return AGENTRY_OK;
  }

  agentry_status_t interrupt(std::string_view reason) override {
    if (runner_.running()) runner_.interrupt(std::string(reason));
    return AGENTRY_OK;
  }

 private:
  Runner runner_;
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
