// The agentry.ask/1 extension of the browser backend: a question about a run's state is
// answered by ONE model call (the run's model settings, no tools, no Chromium) on the
// instance's executor, and the answer goes to the host's agentry.ask-answer/1 exactly once.
#pragma once

#include <agentry/plugin/cpp/host.hpp>

#include <memory>
#include <string>

#include "agentry/plugin_common/runtime/executor.hpp"
#include "agentry/plugin_common/runtime/http.hpp"

namespace agentry::browser {

class Asker : public std::enable_shared_from_this<Asker> {
 public:
  Asker(plugin::Host& host, plugin_common::runtime::Executor& executor) : host_(host), executor_(executor) {}
  Asker(const Asker&) = delete;
  Asker& operator=(const Asker&) = delete;

  // [control] Validates the request and posts the call. UNSUPPORTED when the config has no
  // model section, INVALID_ARGUMENT for a malformed request, INVALID_STATE after the first
  // question (one per instance).
  agentry_status_t ask(std::string ask_id, const std::string& request_json);
  // [executor] Drops a pending call and answers "abandoned" now: the instance is going.
  void abandon() noexcept;

 private:
  void answer(const std::string& payload_json) noexcept;  // [executor] once

  plugin::Host& host_;
  plugin_common::runtime::Executor& executor_;
  bool asked_ = false;     // [control]
  std::string ask_id_;     // [executor] from here on
  bool answered_ = true;   // nothing pending until the call starts
  std::shared_ptr<plugin_common::runtime::HttpCall> call_;
};

}  // namespace agentry::browser
