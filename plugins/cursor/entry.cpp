// The "cursor" backend: the Cursor CLI (`cursor-agent -p --output-format stream-json`) as an
// agentry backend (docs/backends/cursor.md). The C ABI comes from the glue; the work from Turns.
#include <memory>
#include <string>
#include <string_view>

#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin_common/input_fields.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "launch.hpp"
#include "turns.hpp"

namespace agentry::cursor {

namespace {

class CursorBackend final : public agentry::plugin::Backend {
 public:
  using Backend::Backend;
  ~CursorBackend() override {  // nothing of the instance runs after this (obligation 10)
    executor_.stop_after([this] {
      if (turns_) turns_->abandon();
    });
    turns_.reset();
  }

  agentry_status_t start(const agentry::plugin::StartParams& params) override {
    if (turns_ && turns_->running()) return AGENTRY_ERR_INVALID_STATE;
    ParsedLaunch parsed = parse_launch(params);
    if (!parsed.launch) {
      host().log(AGENTRY_LOG_ERROR, "cursor: run " + params.run_id + ": " + parsed.error);
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    turns_ = Turns::start(host(), executor_, std::move(*parsed.launch));
    return AGENTRY_OK;
  }

  agentry_status_t send_input(const agentry::plugin::Input& input) override {
    if (!turns_ || !turns_->running()) return AGENTRY_ERR_INVALID_STATE;
    const plugin_common::InputFields in = plugin_common::read_input(input, false);  // it asks nothing
    return in.status != AGENTRY_OK ? in.status : turns_->send_message(in.text);
  }

  agentry_status_t interrupt(std::string_view reason) override {
    if (turns_ && turns_->running()) turns_->interrupt(std::string(reason));
    return AGENTRY_OK;
  }

 private:
  plugin_common::runtime::Executor executor_;  // first: the turns run on it
  std::shared_ptr<Turns> turns_;
};

constexpr const char* kFeatures[] = {AGENTRY_FEATURE_RESUME, AGENTRY_FEATURE_INTERRUPT, AGENTRY_FEATURE_INPUT, nullptr};

constexpr agentry_backend_descriptor_t kDescriptor{
    AGENTRY_PLUGIN_ABI_VERSION_INIT,
    "cursor",
    "Cursor CLI",
    "agentry",
    "0.1.0",
    "Runs the Cursor CLI (cursor-agent -p, stream-json) once per turn: streamed text and thinking, tools, todos, "
    "interrupt, resume by chat id",
    kFeatures};

constexpr agentry::plugin::BackendType kTypes[] = {agentry::plugin::backend_type<CursorBackend>(kDescriptor)};

}  // namespace

}  // namespace agentry::cursor

AGENTRY_PLUGIN_DEFINE_ENTRY(agentry::cursor::kTypes);
