// The "browser" backend: Chromium headless driven over the DevTools protocol.
#pragma once

#include <memory>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
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
  plugin_common::runtime::Executor executor_;  // first: the attempt and the ask run on it
  std::shared_ptr<Attempt> attempt_;
  std::shared_ptr<Asker> asker_;
};

extern const agentry_backend_descriptor_t kBrowserDescriptor;

}  // namespace agentry::browser
