#include "browser/browser_backend.hpp"

namespace agentry::browser {

BrowserBackend::~BrowserBackend() { attempt_.reset(); }

agentry_status_t BrowserBackend::start(const plugin::StartParams& params) {
  if (attempt_ && !attempt_->finishing()) return AGENTRY_ERR_INVALID_STATE;
  attempt_.reset();  // its worker is at most returning from the last emit
  attempt_ = std::make_unique<Attempt>(host(), params);
  attempt_->launch();
  return AGENTRY_OK;
}

agentry_status_t BrowserBackend::interrupt(std::string_view reason) {
  if (attempt_) attempt_->interrupt(reason);
  return AGENTRY_OK;
}

namespace {
constexpr const char* kFeatures[] = {AGENTRY_FEATURE_RESUME, AGENTRY_FEATURE_INTERRUPT, nullptr};
}  // namespace

const agentry_backend_descriptor_t kBrowserDescriptor{
    AGENTRY_PLUGIN_ABI_VERSION_INIT,
    "browser",
    "Browser (Chromium, scripted)",
    "agentry",
    "0.1.0",
    "Chromium headless over the DevTools protocol: plays the page actions in backendConfig.browser.steps "
    "or in the prompt's \"@browser {...}\" lines.",
    kFeatures};

}  // namespace agentry::browser
