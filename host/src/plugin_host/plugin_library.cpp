#include "plugin_host/plugin_library.hpp"

#include "agentry/plugin/plugin.h"
#include "core/log.hpp"

#include <boost/dll/shared_library.hpp>

namespace agentry::plugin_host {
namespace {

std::string version_text(const agentry_version_t& v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

std::string or_empty(const char* s) { return s ? std::string(s) : std::string(); }

bool valid_backend_id(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true;
}

}  // namespace

struct PluginLibrary::Handle {
  boost::dll::shared_library library;
};

PluginLibrary::PluginLibrary(std::filesystem::path path, std::unique_ptr<Handle> handle)
    : path_(std::move(path)), handle_(std::move(handle)) {}

PluginLibrary::~PluginLibrary() {
  if (instances_.load() > 0) {
    // Unloading would pull code out from under live instances: keep it mapped.
    core::log_error("plugin still has live instances; leaving it loaded",
                    {{"path", path_.string()}, {"instances", std::to_string(instances_.load())}});
    static_cast<void>(handle_.release());
    return;
  }
  if (initialized_ && entry_ && entry_->deinit) entry_->deinit();
}

std::string PluginLibrary::abi_version() const { return entry_ ? version_text(entry_->abi_version) : ""; }

core::Result<std::shared_ptr<PluginLibrary>> PluginLibrary::load(const std::filesystem::path& path) {
  auto fail = [&](std::string message, boost::json::object details = {}) {
    details["path"] = path.string();
    return core::fail(core::ErrorCode::validation, path.string() + ": " + message, std::move(details));
  };
  auto handle = std::make_unique<Handle>();
  try {
    handle->library.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    return fail(std::string("cannot load library: ") + e.what());
  }
  if (!handle->library.has(AGENTRY_PLUGIN_ENTRY_SYMBOL))
    return fail("no entry point: the library does not export '" AGENTRY_PLUGIN_ENTRY_SYMBOL "' (policy 1)",
                {{"symbol", AGENTRY_PLUGIN_ENTRY_SYMBOL}});
  std::shared_ptr<PluginLibrary> lib(new PluginLibrary(path, std::move(handle)));
  lib->entry_ = &lib->handle_->library.get<const agentry_plugin_entry_t>(AGENTRY_PLUGIN_ENTRY_SYMBOL);
  const auto& entry = *lib->entry_;
  const agentry_version_t host_version = AGENTRY_PLUGIN_ABI_VERSION_INIT;
  if (!agentry_version_is_compatible(entry.abi_version))
    return fail("incompatible plugin ABI " + version_text(entry.abi_version) + "; this agentry speaks " +
                    version_text(host_version),
                {{"symbol", AGENTRY_PLUGIN_ENTRY_SYMBOL},
                 {"pluginAbi", version_text(entry.abi_version)},
                 {"hostAbi", version_text(host_version)}});
  if (!entry.init || !entry.deinit || !entry.get_factory) return fail("entry has a NULL function pointer");
  if (!entry.init(path.c_str())) return fail("the plugin's init() refused to load");
  lib->initialized_ = true;
  lib->factory_ = static_cast<const agentry_backend_factory_t*>(entry.get_factory(AGENTRY_BACKEND_FACTORY_ID));
  if (!lib->factory_ || !lib->factory_->get_backend_count || !lib->factory_->get_backend_descriptor ||
      !lib->factory_->create_backend)
    return fail("the plugin provides no usable '" AGENTRY_BACKEND_FACTORY_ID "' factory");
  const auto count = lib->factory_->get_backend_count(lib->factory_);
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto* d = lib->factory_->get_backend_descriptor(lib->factory_, i);
    if (!d || !d->id || !valid_backend_id(d->id) || !d->name) {
      core::log_warn("skipping a malformed backend descriptor", {{"path", path.string()}, {"index", std::to_string(i)}});
      continue;
    }
    BackendDescriptor out{d->id, d->name, or_empty(d->vendor), or_empty(d->version), or_empty(d->description), {}, d};
    for (auto f = d->features; f && *f; ++f) out.features.emplace_back(*f);
    lib->backends_.push_back(std::move(out));
  }
  if (lib->backends_.empty()) return fail("the plugin declares no backends");
  return lib;
}

}  // namespace agentry::plugin_host
