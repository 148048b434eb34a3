#include "browser/browser_backend.hpp"

namespace agentry::browser {

BrowserBackend::~BrowserBackend() {
  // Chromium killed and reaped, FINISHED out, before destroy returns (obligation 10).
  if (attempt_) {
    attempt_->interrupt("the backend instance is being destroyed");
    attempt_->wait_finished();
  }
  executor_.stop_after([this] {
    if (asker_) asker_->abandon();
  });
  attempt_.reset();
  asker_.reset();
}

agentry_status_t BrowserBackend::start(const plugin::StartParams& params) {
  if (attempt_ && !attempt_->finishing()) return AGENTRY_ERR_INVALID_STATE;
  attempt_ = Attempt::start(host(), executor_, params);
  return AGENTRY_OK;
}

agentry_status_t BrowserBackend::interrupt(std::string_view reason) {
  if (attempt_) attempt_->interrupt(reason);
  return AGENTRY_OK;
}

agentry_status_t BrowserBackend::ask(std::string ask_id, std::string request_json) {
  if (attempt_ && !attempt_->finishing()) return AGENTRY_ERR_INVALID_STATE;  // [idle] only
  if (!asker_) asker_ = std::make_shared<Asker>(host(), executor_);
  return asker_->ask(std::move(ask_id), request_json);
}

const void* BrowserBackend::get_extension(std::string_view id) noexcept { return plugin::ask_extension_for(id); }

namespace {
constexpr const char* kFeatures[] = {AGENTRY_FEATURE_RESUME, AGENTRY_FEATURE_INTERRUPT, AGENTRY_FEATURE_ASK, nullptr};
}  // namespace

const agentry_backend_descriptor_t kBrowserDescriptor{
    AGENTRY_PLUGIN_ABI_VERSION_INIT,
    "browser",
    "Browser (Chromium, scripted or model-driven)",
    "agentry",
    "0.1.0",
    "Chromium headless over the DevTools protocol: plays the page actions in backendConfig.browser.steps "
    "or in the prompt's \"@browser {...}\" lines, or lets the model in backendConfig.browser.model choose "
    "them; answers asks about a run with one model call.",
    kFeatures};

}  // namespace agentry::browser
