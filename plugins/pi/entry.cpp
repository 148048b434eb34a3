// The "pi" backend: pi (@mariozechner/pi-coding-agent) in RPC mode as an agentry backend
// (docs/backends/pi.md). The C ABI comes from the glue; the work from Session.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin_common/input_fields.hpp"
#include "agentry/plugin_common/side_question.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "launch.hpp"
#include "session.hpp"

namespace agentry::pi {

namespace {

class PiBackend final : public agentry::plugin::Backend, public agentry::plugin::Askable {
 public:
  using Backend::Backend;
  ~PiBackend() override {  // nothing of the instance runs after this (obligation 10)
    executor_.stop_after([this] {
      if (session_) session_->abandon();
    });
    session_.reset();
  }

  // A fresh instance answers one question, never started (ext/ask.h).
  agentry_status_t ask(std::string ask_id, std::string request_json) override {
    if (session_) return AGENTRY_ERR_INVALID_STATE;
    std::string why;
    std::optional<agentry::plugin::StartParams> params = plugin_common::side_question_params(request_json, why);
    ParsedLaunch parsed = params ? parse_launch(*params, true) : ParsedLaunch{std::nullopt, why};
    if (!parsed.launch) {
      host().log(AGENTRY_LOG_ERROR, "pi: cannot ask: " + parsed.error);
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    session_ = Session::ask(host(), executor_, std::move(*parsed.launch), std::move(ask_id));
    return AGENTRY_OK;
  }
  const void* get_extension(std::string_view id) noexcept override { return agentry::plugin::ask_extension_for(id); }

  agentry_status_t start(const agentry::plugin::StartParams& params) override {
    if (session_ && session_->running()) return AGENTRY_ERR_INVALID_STATE;
    ParsedLaunch parsed = parse_launch(params);
    if (!parsed.launch) {
      host().log(AGENTRY_LOG_ERROR, "pi: run " + params.run_id + ": " + parsed.error);
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    session_ = Session::start(host(), executor_, std::move(*parsed.launch));
    return AGENTRY_OK;
  }

  agentry_status_t send_input(const agentry::plugin::Input& input) override {
    if (!session_ || !session_->running()) return AGENTRY_ERR_INVALID_STATE;
    const plugin_common::InputFields in = plugin_common::read_input(input, false);  // it asks nothing
    return in.status != AGENTRY_OK ? in.status : session_->send_message(in.text);
  }

  agentry_status_t interrupt(std::string_view reason) override {
    if (session_ && session_->running()) session_->interrupt(std::string(reason));
    return AGENTRY_OK;
  }

 private:
  plugin_common::runtime::Executor executor_;  // first: the session runs on it
  std::shared_ptr<Session> session_;
};

constexpr const char* kFeatures[] = {AGENTRY_FEATURE_RESUME, AGENTRY_FEATURE_INTERRUPT, AGENTRY_FEATURE_INPUT,
                                     AGENTRY_FEATURE_ASK, nullptr};

constexpr agentry_backend_descriptor_t kDescriptor{
    AGENTRY_PLUGIN_ABI_VERSION_INIT,
    "pi",
    "pi coding agent",
    "agentry",
    "0.1.0",
    "Runs pi (pi --mode rpc): streamed text and thinking, tools, follow-ups, abort, resume by session file, questions answered by a fork",
    kFeatures};

constexpr agentry::plugin::BackendType kTypes[] = {agentry::plugin::backend_type<PiBackend>(kDescriptor)};

}  // namespace

}  // namespace agentry::pi

AGENTRY_PLUGIN_DEFINE_ENTRY(agentry::pi::kTypes);
