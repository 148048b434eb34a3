#pragma once
// One loaded plugin library: dlopen (RTLD_NOW | RTLD_LOCAL) through Boost.DLL, the
// single entry symbol, the ABI version check, init/deinit, and its backend descriptors.
// A library is never unloaded while instances of its backends are alive.

#include "core/result.hpp"

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

struct agentry_plugin_entry;
struct agentry_backend_factory;
struct agentry_backend_descriptor;

namespace agentry::plugin_host {

struct BackendDescriptor {
  std::string id;
  std::string name;
  std::string vendor;
  std::string version;
  std::string description;
  std::vector<std::string> features;
  const agentry_backend_descriptor* raw = nullptr;
};

class PluginLibrary {
 public:
  /// Loads and initializes the library; the error names the file, the symbol and the
  /// versions involved.
  static core::Result<std::shared_ptr<PluginLibrary>> load(const std::filesystem::path& path);
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const std::filesystem::path& path() const { return path_; }
  const std::vector<BackendDescriptor>& backends() const { return backends_; }
  const agentry_backend_factory* factory() const { return factory_; }
  std::string abi_version() const;

  /// Live instances keep the library loaded.
  void instance_created() { ++instances_; }
  void instance_destroyed() { --instances_; }
  int live_instances() const { return instances_.load(); }

 private:
  struct Handle;
  PluginLibrary(std::filesystem::path path, std::unique_ptr<Handle> handle);

  std::filesystem::path path_;
  std::unique_ptr<Handle> handle_;
  const agentry_plugin_entry* entry_ = nullptr;
  const agentry_backend_factory* factory_ = nullptr;
  std::vector<BackendDescriptor> backends_;
  std::atomic<int> instances_{0};
  bool initialized_ = false;
};

}  // namespace agentry::plugin_host
