// Drives the built subprocess plugin through its C ABI: dlopen() of the path in
// AGENTRY_SUBPROCESS_PLUGIN (set by ctest), one backend instance per SubprocessInstance.
#pragma once

#include <chrono>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "agentry/plugin/plugin.h"
#include "recording_host.hpp"
#include "support/subprocess.hpp"  // process_alive()
#include "support/temp_dir.hpp"

namespace agentry::test {

// The loaded library's factory (loaded once per process; the test fails when absent).
const agentry_backend_factory_t* subprocess_factory();

// A JSON array of strings.
boost::json::array strings(std::initializer_list<std::string_view> items);

// {"backendConfig": backend} plus `extra` top-level fields.
std::string config_json(boost::json::object backend, boost::json::object extra = {});

// A backendConfig running `/bin/sh -c script`, plus `fields`.
boost::json::object shell(std::string_view script, boost::json::object fields = {});

struct StartOptions {
  std::string prompt = "hello";
  std::vector<std::string> env = {"AGENTRY_RUN_ID=run-1"};
  std::string workspace;  // default: the instance's own temporary directory
  std::string resume_token;
};
StartOptions with_prompt(std::string prompt);
StartOptions with_workspace(std::string workspace);
StartOptions with_resume_token(std::string token);

class SubprocessInstance {
 public:
  SubprocessInstance();  // create_backend("subprocess") + init()
  // Another plugin's backend `id`, through the same harness (the acp tests use it).
  SubprocessInstance(const agentry_backend_factory_t* factory, const char* id);
  ~SubprocessInstance();  // destroy() unless done already
  SubprocessInstance(const SubprocessInstance&) = delete;
  SubprocessInstance& operator=(const SubprocessInstance&) = delete;

  agentry_status_t start(const std::string& config, const StartOptions& options = {});
  agentry_status_t interrupt(const char* reason = "test");
  agentry_status_t send_input(uint32_t kind, const std::string& payload_json);
  void destroy();

  // Waits for the attempt's FINISHED (failing the test after `limit`) and returns its payload.
  boost::json::object wait_finished(std::chrono::seconds limit = std::chrono::seconds(30));
  // Waits until an event of `type` whose payload contains `text` (anywhere) arrives.
  bool wait_for_text(uint16_t type, std::string_view text, std::chrono::seconds limit = std::chrono::seconds(30));

  std::vector<RecordedEvent> events_of(uint16_t type) const;
  RecordingHost& host() noexcept { return host_; }
  const agentry_backend_t* backend() const noexcept { return backend_; }
  const TempDir& workspace() const noexcept { return workspace_; }

 private:
  RecordingHost host_;
  TempDir workspace_;
  const agentry_backend_t* backend_ = nullptr;
  int finished_before_ = 0;  // FINISHED events before the latest start()
};

}  // namespace agentry::test
