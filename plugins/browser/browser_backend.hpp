// The "browser" backend: Chromium headless driven over the DevTools protocol.
#pragma once

#include <memory>

#include "agentry/plugin/cpp/backend.hpp"
#include "browser/attempt.hpp"

namespace agentry::browser {

class BrowserBackend final : public plugin::Backend {
 public:
  using Backend::Backend;
  ~BrowserBackend() override;
  agentry_status_t start(const plugin::StartParams& params) override;
  agentry_status_t interrupt(std::string_view reason) override;

 private:
  std::unique_ptr<Attempt> attempt_;
};

extern const agentry_backend_descriptor_t kBrowserDescriptor;

}  // namespace agentry::browser
