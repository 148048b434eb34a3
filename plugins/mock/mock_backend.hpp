// The "mock" backend: a deterministic scripted agent for tests and benchmarks
// (the step language is in script.hpp). One Attempt, and one worker thread, per start().
#pragma once

#include <memory>
#include <string_view>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin/cpp/backend.hpp"
#include "mock/attempt.hpp"
#include "mock/question.hpp"

namespace agentry::mock {

class MockBackend final : public plugin::Backend, public plugin::Askable {
 public:
  using Backend::Backend;
  ~MockBackend() override;  // joins the last attempt's worker

  agentry_status_t start(const plugin::StartParams& params) override;
  agentry_status_t send_input(const plugin::Input& input) override;
  agentry_status_t interrupt(std::string_view reason) override;
  agentry_status_t ask(std::string ask_id, std::string request_json) override;
  const void* get_extension(std::string_view id) noexcept override { return plugin::ask_extension_for(id); }

 private:
  std::unique_ptr<Attempt> attempt_;    // the running or the last finished attempt
  std::unique_ptr<Question> question_;  // the one question this (never started) instance answers
};

extern const agentry_backend_descriptor_t kMockDescriptor;

}  // namespace agentry::mock
