// The "browser" backend: Chromium headless driven over the DevTools protocol.
#pragma once

#include <memory>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin/cpp/backend.hpp"
#include "browser/ask.hpp"
#include "browser/attempt.hpp"

namespace agentry::browser {

class BrowserBackend final : public plugin::Backend, public plugin::Askable {
 public:
  using Backend::Backend;
  ~BrowserBackend() override;
  agentry_status_t start(const plugin::StartParams& params) override;
  agentry_status_t interrupt(std::string_view reason) override;
  agentry_status_t ask(std::string ask_id, std::string request_json) override;  // [control, idle]
  const void* get_extension(std::string_view id) noexcept override;

 private:
  std::unique_ptr<Attempt> attempt_;
  std::unique_ptr<Asker> asker_;
};

extern const agentry_backend_descriptor_t kBrowserDescriptor;

}  // namespace agentry::browser
