#include "plugin_host/plugin_registry.hpp"

#include "core/log.hpp"
#include "core/metrics.hpp"
#include "plugin_host/plugin_backend_instance.hpp"

#include <agentry/plugin/backend.h>

#include <algorithm>

namespace agentry::plugin_host {
namespace fs = std::filesystem;

PluginRegistry::~PluginRegistry() {
  std::lock_guard lock(mutex_);
  backends_.clear();
  libraries_.clear();  // each library refuses to unload while it has live instances
}

std::vector<fs::path> PluginRegistry::default_search_path(const fs::path& config_dir, std::string_view plugin_path) {
  std::vector<fs::path> dirs;
  std::string_view rest = plugin_path;
  while (!rest.empty()) {
    auto colon = rest.find(':');
    auto part = rest.substr(0, colon);
    if (!part.empty()) dirs.emplace_back(std::string(part));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  dirs.push_back(config_dir / "backends");
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "lib" / "agentry" / "plugins");
  return dirs;
}

void PluginRegistry::load_all(const std::vector<fs::path>& directories) {
  for (const auto& dir : directories) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.is_regular_file(ec) && entry.path().extension() == ".so") found.push_back(entry.path());
      if (entry.is_directory(ec))
        for (const auto& inner : fs::directory_iterator(entry.path(), ec))
          if (inner.is_regular_file(ec) && inner.path().extension() == ".so") found.push_back(inner.path());
    }
    std::sort(found.begin(), found.end());
    for (const auto& path : found) load(fs::absolute(path));
  }
}

namespace {

void count_load_error() {
  static auto& errors = core::metrics::registry().counter(
      "agentry_plugin_load_errors_total", "Plugin libraries or backends that failed to load (see the daemon log).");
  errors.inc();
}

void count_loaded_backend() {
  static auto& loaded = core::metrics::registry().gauge("agentry_backends_loaded", "Backends loaded from plugins.");
  loaded.add(1);
}

}  // namespace

void PluginRegistry::load(const fs::path& path) {
  auto library = PluginLibrary::load(path);
  std::lock_guard lock(mutex_);
  if (!library) {
    core::log_error("plugin failed to load", {{"path", path.string()}, {"error", library.error().message}});
    errors_.push_back({path.string(), library.error().message, library.error().details});
    count_load_error();
    return;
  }
  bool any = false;
  for (const auto& backend : (*library)->backends()) {
    if (auto existing = backends_.find(backend.id); existing != backends_.end()) {
      std::string message = "backend id '" + backend.id + "' is already provided by " +
                            existing->second.library->path().string() + "; this one is ignored";
      core::log_warn("duplicate backend id", {{"path", path.string()}, {"backend", backend.id}});
      errors_.push_back({path.string(), message, {{"backend", backend.id}}});
      count_load_error();
      continue;
    }
    backends_.emplace(backend.id, LoadedBackend{backend, *library});
    count_loaded_backend();
    any = true;
    core::log_info("loaded backend", {{"backend", backend.id},
                                      {"version", backend.version},
                                      {"abi", (*library)->abi_version()},
                                      {"path", path.string()}});
  }
  if (any) libraries_.push_back(std::move(*library));
}

bool PluginRegistry::has(const std::string& backend_id) const {
  std::lock_guard lock(mutex_);
  return backends_.count(backend_id) > 0;
}

bool PluginRegistry::can_detach(const std::string& backend_id) const {
  std::lock_guard lock(mutex_);
  auto it = backends_.find(backend_id);
  if (it == backends_.end()) return false;
  const auto& features = it->second.descriptor.features;
  return std::find(features.begin(), features.end(), AGENTRY_FEATURE_DETACH) != features.end();
}

std::vector<std::string> PluginRegistry::backend_ids() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> ids;
  for (const auto& [id, backend] : backends_) ids.push_back(id);
  return ids;
}

std::vector<LoadedBackend> PluginRegistry::backends() const {
  std::lock_guard lock(mutex_);
  std::vector<LoadedBackend> out;
  for (const auto& [id, backend] : backends_) out.push_back(backend);
  return out;
}

std::vector<LoadError> PluginRegistry::errors() const {
  std::lock_guard lock(mutex_);
  return errors_;
}

core::Result<std::unique_ptr<BackendInstance>> PluginRegistry::create(const std::string& backend_id,
                                                                     BackendEventSink& sink) const {
  LoadedBackend backend;
  {
    std::lock_guard lock(mutex_);
    auto it = backends_.find(backend_id);
    if (it == backends_.end())
      return core::fail(core::ErrorCode::validation, "backend '" + backend_id + "' is not loaded");
    backend = it->second;
  }
  return create_plugin_session(backend.library, backend.descriptor, sink);
}

}  // namespace agentry::plugin_host
