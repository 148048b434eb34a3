#pragma once
// Every loaded backend plugin, and every library that failed to load (with why).
// Search order, first match of a backend id wins:
//   1. AGENTRY_PLUGIN_PATH (colon-separated directories; core::Settings::plugin_path)
//   2. <config dir>/backends/<name>/  (drop-in custom backends)
//   3. the build's/installation's plugin dir (<binary>/../lib/agentry/plugins)
// A second library declaring an id that is already loaded is reported as a load error.

#include "core/result.hpp"
#include "plugin_host/backend_instance.hpp"
#include "plugin_host/plugin_library.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::plugin_host {

struct LoadError {
  std::string path;
  std::string message;
  boost::json::object details;
};

struct LoadedBackend {
  BackendDescriptor descriptor;
  std::shared_ptr<PluginLibrary> library;
};

class PluginRegistry {
 public:
  PluginRegistry() = default;
  ~PluginRegistry();
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  /// The directories to search, in order: those of `plugin_path` (colon-separated, as
  /// AGENTRY_PLUGIN_PATH gives them), then the config dir's and the installation's.
  static std::vector<std::filesystem::path> default_search_path(const std::filesystem::path& config_dir,
                                                                std::string_view plugin_path);

  /// Loads every *.so in `directories` (recursing one level into <dir>/<name>/).
  void load_all(const std::vector<std::filesystem::path>& directories);
  /// Loads one library; failures are recorded and logged, never thrown.
  void load(const std::filesystem::path& library);

  bool has(const std::string& backend_id) const;
  /// True when the backend can leave its agent working and take it over later (ext/detach.h).
  bool can_detach(const std::string& backend_id) const;
  std::vector<std::string> backend_ids() const;
  std::vector<LoadedBackend> backends() const;
  std::vector<LoadError> errors() const;

  core::Result<std::unique_ptr<BackendInstance>> create(const std::string& backend_id, BackendEventSink& sink) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, LoadedBackend> backends_;
  std::vector<std::shared_ptr<PluginLibrary>> libraries_;
  std::vector<LoadError> errors_;
};

}  // namespace agentry::plugin_host
