// The browser plugin's one exported symbol.
#include "agentry/plugin/cpp/backend.hpp"
#include "browser/browser_backend.hpp"

namespace {
constexpr agentry::plugin::BackendType kTypes[] = {
    agentry::plugin::backend_type<agentry::browser::BrowserBackend>(agentry::browser::kBrowserDescriptor)};
}  // namespace

AGENTRY_PLUGIN_DEFINE_ENTRY(kTypes);
