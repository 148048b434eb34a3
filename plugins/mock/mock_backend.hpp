// The "mock" backend: a deterministic scripted agent for tests and benchmarks
// (the step language is in script.hpp). One Attempt, and one worker thread, per start().
#pragma once

#include <memory>
#include <string_view>

#include "agentry/plugin/cpp/backend.hpp"
#include "mock/attempt.hpp"

namespace agentry::mock {

class MockBackend final : public plugin::Backend {
 public:
  using Backend::Backend;
  ~MockBackend() override;  // joins the last attempt's worker

  agentry_status_t start(const plugin::StartParams& params) override;
  agentry_status_t send_input(const plugin::Input& input) override;
  agentry_status_t interrupt(std::string_view reason) override;

 private:
  std::unique_ptr<Attempt> attempt_;  // the running or the last finished attempt
};

extern const agentry_backend_descriptor_t kMockDescriptor;

}  // namespace agentry::mock
