// What the browser plugin tests share beside support/browser_site.hpp (the loopback site,
// live Chromium processes): the plugin's factory and one plugin instance driven through
// the C ABI with the recording host.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>

#include "recording_host.hpp"
#include "support/browser_site.hpp"
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {

// The browser plugin's factory (AGENTRY_BROWSER_PLUGIN, set by ctest), loaded once.
const agentry_backend_factory_t* browser_factory();

// One browser backend instance on a recording host.
class Instance {
 public:
  Instance();
  ~Instance();  // destroys the instance; the host must have seen no broken rule
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  // start() with backendConfig.browser = `browser` (plus profileDir) and `prompt`.
  agentry_status_t start(boost::json::object browser, const std::string& profile, bool resume = false,
                         std::vector<std::string> env = {}, const std::string& prompt = "go");
  // The last FINISHED payload once this attempt's FINISHED has arrived (a failure after `limit`).
  boost::json::object wait_finished(std::chrono::seconds limit = std::chrono::seconds(90));
  // The texts of every MESSAGE_COMPLETED, one a line.
  std::string messages() const;
  const agentry_backend_t* backend() const { return backend_; }
  // Destroys the instance now (the destructor then does nothing more).
  void destroy();

  RecordingHost host_;
  TempDir workspace_;
  TempDir profile_;

 private:
  const agentry_backend_t* backend_ = nullptr;
  uint32_t attempts_ = 0;
  int finished_before_ = 0;
};

}  // namespace agentry::test
