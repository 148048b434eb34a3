// The public ABI headers, the thread-check extension and the C++ glue compile as strict
// C++20 with the project's warnings as errors, and the glue instantiates.
#include "agentry/plugin/plugin.h"
#include "agentry/plugin/ext/ask.h"
#include "agentry/plugin/ext/detach.h"
#include "agentry/plugin/ext/thread_check.h"
#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin/cpp/detach.hpp"
#include "agentry/plugin/cpp/ask.hpp"

#include <cstddef>
#include <type_traits>

static_assert(offsetof(agentry_event_t, struct_size) == 0);
static_assert(offsetof(agentry_start_params_t, struct_size) == 0);
static_assert(offsetof(agentry_input_t, struct_size) == 0);
static_assert(std::is_standard_layout_v<agentry_host_t> && std::is_trivially_copyable_v<agentry_host_t>);
static_assert(std::is_standard_layout_v<agentry_backend_t> && std::is_trivially_copyable_v<agentry_backend_t>);
static_assert(std::is_standard_layout_v<agentry_event_t> && std::is_trivially_copyable_v<agentry_event_t>);
static_assert(std::is_same_v<decltype(agentry_host_thread_check_t::is_control_context),
                             bool (*)(const agentry_host_t*)>);

namespace {
class Minimal final : public agentry::plugin::Backend {
 public:
  using Backend::Backend;
  agentry_status_t start(const agentry::plugin::StartParams&) override { return AGENTRY_OK; }
  agentry_status_t interrupt(std::string_view) override { return AGENTRY_OK; }
};
constexpr const char* kFeatures[] = {nullptr};
constexpr agentry_backend_descriptor_t kDesc{AGENTRY_PLUGIN_ABI_VERSION_INIT, "minimal", "Minimal", "", "1.0.0", "",
                                             kFeatures};
constexpr agentry::plugin::BackendType kTypes[] = {agentry::plugin::backend_type<Minimal>(kDesc)};
// The entry object is a constant: the host may read it before any code of the library runs.
constexpr const agentry_plugin_entry_t& kEntry = agentry::plugin::Library<kTypes>::entry;
static_assert(kEntry.abi_version.major == AGENTRY_PLUGIN_ABI_MAJOR);
}  // namespace

int agentry_abi_cpp20_check();

int agentry_abi_cpp20_check() {
  const bool ok = kEntry.init("/check") && kEntry.get_factory(AGENTRY_BACKEND_FACTORY_ID) != nullptr;
  kEntry.deinit();
  return ok ? 0 : 1;
}
