// agentry plugin C++ glue for the "agentry.detach/1" backend extension (ext/detach.h).
//
//   class MyBackend final : public agentry::plugin::Backend, public agentry::plugin::Detachable {
//     agentry_status_t detach(std::string_view reason) override;
//     agentry_status_t adopt(const agentry::plugin::StartParams& params) override;
//     const void* get_extension(std::string_view id) noexcept override {
//       return agentry::plugin::detach_extension_for(id);
//     }
//   };
#pragma once

#include <string_view>

#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin/ext/detach.h"

namespace agentry::plugin {

// What a Backend implements to offer the extension; the same thread tags as ext/detach.h.
class Detachable {
 public:
  virtual ~Detachable() = default;
  // [control, running] Let the attempt go without stopping the agent; FINISHED
  // {"outcome":"detached"} follows. AGENTRY_ERR_UNSUPPORTED: the host interrupts instead.
  virtual agentry_status_t detach(std::string_view reason) = 0;
  // [control, idle] Take over what an earlier instance left running (resume token set).
  virtual agentry_status_t adopt(const StartParams& params) = 0;
};

namespace detail {

struct DetachTrampolines {
  // The instance behind `b`, if its class implements Detachable.
  static Detachable* self(const agentry_backend_t* b) noexcept {
    return dynamic_cast<Detachable*>(static_cast<Backend*>(b->backend_data));
  }
  static Backend& backend(const agentry_backend_t* b) noexcept { return *static_cast<Backend*>(b->backend_data); }

  static agentry_status_t detach(const agentry_backend_t* b, const char* reason) noexcept {
    Detachable* d = self(b);
    if (d == nullptr) return AGENTRY_ERR_UNSUPPORTED;
    Trampolines::check_control(backend(b), "detach");
    return guarded(backend(b), "detach", [&] { return d->detach(reason != nullptr ? reason : ""); });
  }
  static agentry_status_t adopt(const agentry_backend_t* b, const agentry_start_params_t* p) noexcept {
    Detachable* d = self(b);
    if (d == nullptr) return AGENTRY_ERR_UNSUPPORTED;
    Trampolines::check_control(backend(b), "adopt");
    return guarded(backend(b), "adopt", [&] {
      auto params = StartParams::from(p);
      return params ? d->adopt(*params) : AGENTRY_ERR_INVALID_ARGUMENT;
    });
  }
};

inline constexpr agentry_backend_detach_t kDetachTable{sizeof(agentry_backend_detach_t), &DetachTrampolines::detach,
                                                       &DetachTrampolines::adopt};

}  // namespace detail

// The extension table when `id` names it, else nullptr: a Backend's get_extension().
inline const void* detach_extension_for(std::string_view id) noexcept {
  return id == AGENTRY_EXT_DETACH ? &detail::kDetachTable : nullptr;
}

}  // namespace agentry::plugin
