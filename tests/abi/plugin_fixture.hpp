// Loading a plugin library and driving one backend instance through the C ABI, the way
// the daemon does, for the ABI tests. Library paths come from the environment (set by
// ctest from $<TARGET_FILE:...>), never from compile definitions.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "abi/test_host.hpp"
#include "agentry/plugin/plugin.h"

namespace agentry::abi_test {

// $AGENTRY_ABI_FAKES_DIR/fake_<variant>.so and $AGENTRY_MOCK_PLUGIN ("" when unset).
std::string fake_plugin_path(const std::string& variant);
std::string mock_plugin_path();

// The names of the dynamic symbols a library defines (nm -D --defined-only).
std::vector<std::string> exported_symbols(const std::string& path);

// dlopen(RTLD_NOW | RTLD_LOCAL) and the entry symbol; dlclose on destruction.
class Library {
 public:
  explicit Library(const std::string& path);
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  void* symbol(const char* name) const;
  const agentry_plugin_entry_t* entry() const;

 private:
  void* handle_ = nullptr;
  std::string error_;
};

// A library after a successful entry init(); deinit() on destruction.
class InitializedPlugin {
 public:
  explicit InitializedPlugin(const std::string& path);
  ~InitializedPlugin();
  InitializedPlugin(const InitializedPlugin&) = delete;
  InitializedPlugin& operator=(const InitializedPlugin&) = delete;

  bool ok() const { return factory_ != nullptr; }
  const agentry_backend_factory_t* factory() const { return factory_; }

 private:
  Library library_;
  const agentry_plugin_entry_t* entry_ = nullptr;
  const agentry_backend_factory_t* factory_ = nullptr;
};

struct StartOptions {
  std::string config_json = "{}";
  std::string prompt;
  std::string resume_token;  // "" = a fresh session
  std::vector<std::string> env;
  std::string workspace = "/tmp";
  std::string session_id = "run-1/s0";
  uint32_t attempt = 1;
};

// One backend instance and the TestHost table it was created with.
class Instance {
 public:
  Instance(const InitializedPlugin& plugin, const char* backend_id);
  ~Instance();  // destroy() if still alive
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  bool created() const { return backend_ != nullptr; }
  agentry_status_t init();
  agentry_status_t start(const StartOptions& options);
  agentry_status_t send(uint32_t kind, const std::string& payload_json);
  agentry_status_t interrupt(const char* reason);
  void destroy();

  // Declared first: the host table must outlive the instance.
  TestHost host;

 private:
  const agentry_backend_t* backend_ = nullptr;
};

}  // namespace agentry::abi_test
