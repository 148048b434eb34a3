// The agentry.ask/1 extension of the browser backend: a question about a run's state is
// answered by ONE model call (the run's model settings, no tools, no Chromium) on a worker
// thread, and the answer goes to the host's agentry.ask-answer/1 exactly once.
#pragma once

#include <agentry/plugin/cpp/host.hpp>

#include <atomic>
#include <string>
#include <thread>

namespace agentry::browser {

class Asker {
 public:
  explicit Asker(plugin::Host& host) : host_(host) {}
  // Abandons a pending call (the socket is dropped) and joins the worker (obligation 10).
  ~Asker();
  Asker(const Asker&) = delete;
  Asker& operator=(const Asker&) = delete;

  // [control] Validates the request and starts the worker. UNSUPPORTED when the config has
  // no model section, INVALID_ARGUMENT for a malformed request, INVALID_STATE while a
  // question is pending.
  agentry_status_t ask(std::string ask_id, const std::string& request_json);

 private:
  plugin::Host& host_;
  std::atomic<bool> abandoned_{false};
  std::thread worker_;
};

}  // namespace agentry::browser
