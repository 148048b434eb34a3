// The mock plugin's one exported symbol.
#include "agentry/plugin/cpp/backend.hpp"
#include "mock/mock_backend.hpp"

namespace {
constexpr agentry::plugin::BackendType kTypes[] = {
    agentry::plugin::backend_type<agentry::mock::MockBackend>(agentry::mock::kMockDescriptor)};
}  // namespace

AGENTRY_PLUGIN_DEFINE_ENTRY(kTypes);
