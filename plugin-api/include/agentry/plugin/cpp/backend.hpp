// agentry plugin C++ glue: write a backend as a C++ class, export it as the C ABI.
//
// Optional and header-only; the C headers stay the contract. Usage:
//
//   class MyBackend final : public agentry::plugin::Backend {
//    public:
//     using Backend::Backend;
//     agentry_status_t start(const agentry::plugin::StartParams& p) override;
//     agentry_status_t interrupt(std::string_view reason) override;
//     ~MyBackend() override;  // joins MyBackend's threads (obligation 10)
//   };
//   constexpr const char* kFeatures[] = {AGENTRY_FEATURE_INTERRUPT, nullptr};
//   constexpr agentry_backend_descriptor_t kMy{AGENTRY_PLUGIN_ABI_VERSION_INIT, "my", "My",
//                                              "", "1.0.0", "", kFeatures};
//   constexpr agentry::plugin::BackendType kTypes[] = {agentry::plugin::backend_type<MyBackend>(kMy)};
//   AGENTRY_PLUGIN_DEFINE_ENTRY(kTypes)
//
// What the glue guarantees: every exported function catches every exception and answers
// AGENTRY_ERR_INTERNAL (or NULL / false) instead (ownership rule 3); entry init/deinit
// are reference-counted (obligation 2); the C structs a call borrows are copied into std
// types before your code sees them; seq/time_ns are filled for you (see Host).
// What it does not do: enforce state preconditions or join your threads. Those are yours.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <iterator>
#include <mutex>
#include <string>
#include <string_view>

#include "agentry/plugin/cpp/host.hpp"
#include "agentry/plugin/cpp/json.hpp"
#include "agentry/plugin/cpp/params.hpp"
#include "agentry/plugin/plugin.h"

namespace agentry::plugin {

namespace detail {
struct Trampolines;
}

// One backend instance. Constructed inside create_backend (the constructor must not
// call the host: `host()` exists but stays unused until init()); deleted by destroy().
class Backend {
 public:
  explicit Backend(const agentry_host_t* host) noexcept : host_(host) {}
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  // [control, not running] destroy(). When a subclass destructor returns, every thread
  // it started must be joined (obligation 10); host() stays valid until then.
  virtual ~Backend() = default;

  // [control, created] Prepare the instance; may call the host. A non-OK status makes
  // the host call destroy().
  virtual agentry_status_t init() { return AGENTRY_OK; }

  // [control, idle] Begin an attempt and return at once (obligation 4). When this
  // returns AGENTRY_OK, exactly one FINISHED flagged TERMINAL must follow (obligation 5).
  virtual agentry_status_t start(const StartParams& params) = 0;

  // [control, running] Input for the running attempt. Default: not supported.
  virtual agentry_status_t send_input(const Input& input) {
    static_cast<void>(input);
    return AGENTRY_ERR_UNSUPPORTED;
  }

  // [control, running] Ask the attempt to stop; return at once; idempotent. The
  // terminal event must follow within the host's grace period (obligation 8).
  virtual agentry_status_t interrupt(std::string_view reason) = 0;

  // [control] Runs after host().request_callback().
  virtual void on_callback() {}

  // [thread-safe] A plugin extension table by id, or nullptr; valid until destroy().
  virtual const void* get_extension(std::string_view id) noexcept {
    static_cast<void>(id);
    return nullptr;
  }

  // [thread-safe] This instance's host table, wrapped.
  Host& host() noexcept { return host_; }

 private:
  friend struct detail::Trampolines;
  Host host_;
  agentry_backend_t c_{};  // the C view handed to the host; backend_data == this
};

namespace detail {

// One log line "<what>: <detail>"; noexcept, since it runs inside catch handlers.
inline void log_line(Host& host, int32_t severity, const char* what, const char* detail) noexcept {
  try {
    host.log(severity, std::string(what) + ": " + detail);
  } catch (...) {
    host.log(severity, what);
  }
}

// Runs `f` and turns any escaping exception into AGENTRY_ERR_INTERNAL plus a log line.
template <class F>
agentry_status_t guarded(Backend& self, const char* what, F&& f) noexcept {
  try {
    return f();
  } catch (const std::exception& e) {
    log_line(self.host(), AGENTRY_LOG_ERROR, what, e.what());
  } catch (...) {
    log_line(self.host(), AGENTRY_LOG_ERROR, what, "unknown exception");
  }
  return AGENTRY_ERR_INTERNAL;
}

// The C function table. Each entry recovers the Backend from backend_data.
struct Trampolines {
  static Backend& self(const agentry_backend_t* b) noexcept { return *static_cast<Backend*>(b->backend_data); }

  // Debug builds report a host that calls a [control] function off the control context.
  static void check_control(Backend& s, const char* what) noexcept {
#ifndef NDEBUG
    if (s.host_.is_control_context() == false)
      log_line(s.host_, AGENTRY_LOG_HOST_MISBEHAVING, what, "called off the control context");
#else
    static_cast<void>(s);
    static_cast<void>(what);
#endif
  }

  static agentry_status_t init(const agentry_backend_t* b) noexcept {
    Backend& s = self(b);
    s.host_.fetch_extensions();  // the first call allowed to talk to the host
    check_control(s, "init");
    return guarded(s, "init", [&] { return s.init(); });
  }
  static agentry_status_t start(const agentry_backend_t* b, const agentry_start_params_t* p) noexcept {
    Backend& s = self(b);
    check_control(s, "start");
    return guarded(s, "start", [&] {
      auto params = StartParams::from(p);
      return params ? s.start(*params) : AGENTRY_ERR_INVALID_ARGUMENT;
    });
  }
  static agentry_status_t send_input(const agentry_backend_t* b, const agentry_input_t* in) noexcept {
    Backend& s = self(b);
    check_control(s, "send_input");
    return guarded(s, "send_input", [&] {
      auto input = Input::from(in);
      return input ? s.send_input(*input) : AGENTRY_ERR_INVALID_ARGUMENT;
    });
  }
  static agentry_status_t interrupt(const agentry_backend_t* b, const char* reason) noexcept {
    Backend& s = self(b);
    check_control(s, "interrupt");
    return guarded(s, "interrupt", [&] { return s.interrupt(reason != nullptr ? reason : ""); });
  }
  static void destroy(const agentry_backend_t* b) noexcept {
    Backend* s = &self(b);
    check_control(*s, "destroy");
    delete s;  // destructors are noexcept: a throwing join terminates, by design
  }
  static const void* get_extension(const agentry_backend_t* b, const char* id) noexcept {
    if (id == nullptr) return nullptr;
    return self(b).get_extension(id);
  }
  static void on_callback(const agentry_backend_t* b) noexcept {
    Backend& s = self(b);
    check_control(s, "on_callback");
    guarded(s, "on_callback", [&] {
      s.on_callback();
      return AGENTRY_OK;
    });
  }

  // Fills the C view of a freshly constructed instance.
  static const agentry_backend_t* wire(Backend* s, const agentry_backend_descriptor_t* desc) noexcept {
    s->c_ = agentry_backend_t{desc, s, &init, &start, &send_input, &interrupt, &destroy, &get_extension, &on_callback};
    return &s->c_;
  }
};

}  // namespace detail

// One backend a library provides: its descriptor and how to construct it.
struct BackendType {
  const agentry_backend_descriptor_t* descriptor;
  Backend* (*create)(const agentry_host_t* host);  // may throw; must not call the host
};

template <class T>
constexpr BackendType backend_type(const agentry_backend_descriptor_t& descriptor) noexcept {
  return BackendType{&descriptor, [](const agentry_host_t* host) -> Backend* { return new T(host); }};
}

// Library-wide setup, run on the first init() and the last deinit(). on_load must be
// cheap, must not call the host, and returns false to refuse loading.
struct LibraryHooks {
  bool (*on_load)(const char* plugin_path) = nullptr;
  void (*on_unload)() = nullptr;
};
inline constexpr LibraryHooks kNoLibraryHooks{};

// The entry object and the backend factory for a list of BackendType (`Types` is an
// array or std::array with static storage).
template <const auto& Types, const LibraryHooks& Hooks = kNoLibraryHooks>
class Library {
  // [any thread, not concurrent with other entry calls] Reference-counted (obligation 2).
  static bool init(const char* plugin_path) noexcept {
    try {
      std::lock_guard lock(mutex());
      if (refs() == 0 && Hooks.on_load != nullptr && !Hooks.on_load(plugin_path)) return false;
      refs().fetch_add(1);
      return true;
    } catch (...) {
      return false;
    }
  }
  // Unmatched calls are ignored, so a confused host cannot underflow the count.
  static void deinit() noexcept {
    try {
      std::lock_guard lock(mutex());
      if (refs() == 0) return;
      if (refs().fetch_sub(1) == 1 && Hooks.on_unload != nullptr) Hooks.on_unload();
    } catch (...) {
    }
  }
  // [thread-safe] NULL outside init()..deinit(), so a host that skipped init() fails
  // early instead of using a library that was never set up.
  static const void* get_factory(const char* factory_id) noexcept {
    if (refs() == 0 || factory_id == nullptr || std::strcmp(factory_id, AGENTRY_BACKEND_FACTORY_ID) != 0)
      return nullptr;
    return &factory;
  }
  static uint32_t count(const agentry_backend_factory_t*) noexcept { return static_cast<uint32_t>(std::size(Types)); }
  static const agentry_backend_descriptor_t* descriptor(const agentry_backend_factory_t*, uint32_t index) noexcept {
    return index < std::size(Types) ? Types[index].descriptor : nullptr;
  }
  // [thread-safe] Must not call the host (obligation 3): nothing here logs.
  static const agentry_backend_t* create(const agentry_backend_factory_t*, const agentry_host_t* host,
                                         const char* backend_id) noexcept {
    if (host == nullptr || backend_id == nullptr) return nullptr;
    try {
      for (const BackendType& type : Types)
        if (std::strcmp(type.descriptor->id, backend_id) == 0)
          return detail::Trampolines::wire(type.create(host), type.descriptor);
    } catch (...) {
    }
    return nullptr;
  }
  static std::mutex& mutex() noexcept {
    static std::mutex m;
    return m;
  }
  // Changed under mutex(); atomic so get_factory() can read it without the lock.
  static std::atomic<uint32_t>& refs() noexcept {
    static std::atomic<uint32_t> n{0};
    return n;
  }
  static constexpr agentry_backend_factory_t factory{&count, &descriptor, &create};

 public:
  static constexpr agentry_plugin_entry_t entry{AGENTRY_PLUGIN_ABI_VERSION_INIT, &init, &deinit, &get_factory};
};

}  // namespace agentry::plugin

// Defines the one exported symbol. Arguments: the BackendType array, then optionally a
// LibraryHooks object with static storage.
#define AGENTRY_PLUGIN_DEFINE_ENTRY(...)                                           \
  extern "C" AGENTRY_PLUGIN_EXPORT const agentry_plugin_entry_t agentry_plugin_entry = \
      ::agentry::plugin::Library<__VA_ARGS__>::entry
