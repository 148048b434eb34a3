// The "mock" backend: a deterministic scripted agent for tests and benchmarks
// (the step language is in script.hpp). One Attempt per start(), a coroutine on the
// instance's executor.
#pragma once

#include <memory>
#include <string_view>

#include "agentry/plugin/cpp/ask.hpp"
#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "mock/attempt.hpp"
#include "mock/question.hpp"

namespace agentry::mock {

class MockBackend final : public plugin::Backend, public plugin::Askable {
 public:
  using Backend::Backend;
  ~MockBackend() override;  // the last attempt interrupted and its FINISHED out (obligation 10)

  agentry_status_t start(const plugin::StartParams& params) override;
  agentry_status_t send_input(const plugin::Input& input) override;
  agentry_status_t interrupt(std::string_view reason) override;
  agentry_status_t ask(std::string ask_id, std::string request_json) override;
  const void* get_extension(std::string_view id) noexcept override { return plugin::ask_extension_for(id); }

 private:
  plugin_common::runtime::Executor executor_;  // first: the attempt and the question run on it
  std::shared_ptr<Attempt> attempt_;    // the running or the last finished attempt
  std::shared_ptr<Question> question_;  // the one question this (never started) instance answers
};

extern const agentry_backend_descriptor_t kMockDescriptor;

}  // namespace agentry::mock
