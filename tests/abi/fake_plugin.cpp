// Fake backend plugins for loader and ABI tests. One source, built once per variant
// (tests/abi/CMakeLists.txt) with FAKE_VARIANT_<NAME> and FAKE_BACKEND_ID defined:
//
//   ok                   MESSAGE_COMPLETED, then FINISHED success (the control)
//   no_entry             the entry object exists under another name, so no
//                        agentry_plugin_entry is exported
//   wrong_major          abi_version.major = 99
//   init_fails           entry init() returns false
//   instance_init_fails  backend init() returns AGENTRY_ERR_INTERNAL
//   malformed_json       emits a payload that is not JSON, a NOTICE saying what emit()
//                        returned for it ({"status": <code>}), a MESSAGE_COMPLETED whose
//                        JSON spans lines ({"text": "one\ntwo", "lines": 2}, pretty-printed
//                        with \n and \r\n), then FINISHED success
//   never_terminal       emits one NOTICE and never finishes, even when interrupted
//                        (breaks obligations 5 and 8; its thread does end)
//   many_threads         16 threads emit 500 NOTICEs each concurrently, retrying BUSY;
//                        the last one to finish emits FINISHED success
//   emits_after_grace    emits one NOTICE, ignores interrupt, and from the interrupt on
//                        keeps emitting a NOTICE and a log line every 20 ms for 2 s, then
//                        its thread ends, never finished (breaks obligations 5 and 8): the
//                        host must survive the calls that come after it gave up on the
//                        instance
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agentry/plugin/cpp/backend.hpp"

#ifndef FAKE_BACKEND_ID
#error "FAKE_BACKEND_ID must name the variant's backend id"
#endif

namespace {
using agentry::plugin::Backend;
using agentry::plugin::StartParams;

constexpr int kThreads = 16;
constexpr int kEventsPerThread = 500;

class FakeBackend final : public Backend {
 public:
  using Backend::Backend;
  ~FakeBackend() override { join(); }

  agentry_status_t init() override {
#ifdef FAKE_VARIANT_INSTANCE_INIT_FAILS
    return AGENTRY_ERR_INTERNAL;
#else
    return AGENTRY_OK;
#endif
  }

  agentry_status_t start(const StartParams&) override {
    join();  // the previous attempt's threads are done or about to be
#ifdef FAKE_VARIANT_MANY_THREADS
    remaining_ = kThreads;
    for (int t = 0; t < kThreads; ++t) workers_.emplace_back([this, t] { emit_many(t); });
#else
    workers_.emplace_back([this] { play(); });
#endif
    return AGENTRY_OK;
  }

  agentry_status_t interrupt(std::string_view) override {
#ifdef FAKE_VARIANT_EMITS_AFTER_GRACE
    {
      std::lock_guard lock(mutex_);
      interrupted_ = true;
    }
    interrupted_cv_.notify_all();
#endif
    return AGENTRY_OK;
  }

 private:
  void finish_success() {
    host().emit_with_retry(AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL, R"({"outcome":"success"})");
  }

  void play() {
#if defined(FAKE_VARIANT_MALFORMED_JSON)
    const agentry_status_t st = host().emit_with_retry(AGENTRY_EVENT_NOTICE, 0, "this is {not JSON");
    host().emit_with_retry(AGENTRY_EVENT_NOTICE, 0,
                           R"({"level":"info","message":"the malformed emit returned )" + std::to_string(st) +
                               R"(","status":)" + std::to_string(st) + "}");
    // Valid JSON, but a line break between its tokens would split an SSE frame.
    host().emit_with_retry(AGENTRY_EVENT_MESSAGE_COMPLETED, 0, "{\n  \"text\": \"one\\ntwo\",\r\n  \"lines\": 2\n}");
    finish_success();
#elif defined(FAKE_VARIANT_NEVER_TERMINAL)
    host().emit_with_retry(AGENTRY_EVENT_NOTICE, 0, R"({"level":"info","message":"this attempt never ends"})");
#elif defined(FAKE_VARIANT_EMITS_AFTER_GRACE)
    using namespace std::chrono_literals;
    host().emit_with_retry(AGENTRY_EVENT_NOTICE, 0, R"({"level":"info","message":"working until interrupted"})");
    {
      std::unique_lock lock(mutex_);
      if (!interrupted_cv_.wait_for(lock, 60s, [this] { return interrupted_; })) return;
    }
    for (int i = 0; i < 100; ++i) {  // 2 s: well past the host's grace period in the tests
      const std::string n = std::to_string(i);
      host().emit(AGENTRY_EVENT_NOTICE, 0, R"({"level":"info","message":"still here )" + n + R"("})");
      host().log(AGENTRY_LOG_INFO, "still here " + n);
      std::this_thread::sleep_for(20ms);
    }
#else
    host().emit_with_retry(AGENTRY_EVENT_MESSAGE_COMPLETED, 0, R"({"text":"hello from )" FAKE_BACKEND_ID R"("})");
    finish_success();
#endif
  }

  // Host::emit() takes seq from an atomic counter under its emit mutex, so the seq
  // the host sees still rises strictly while 16 threads race into it.
  void emit_many(int thread) {
    for (int i = 0; i < kEventsPerThread; ++i) {
      const std::string payload = R"({"level":"info","message":"thread )" + std::to_string(thread) + " event " +
                                  std::to_string(i) + R"(","thread":)" + std::to_string(thread) + "}";
      host().emit_with_retry(AGENTRY_EVENT_NOTICE, 0, payload);
    }
    if (remaining_.fetch_sub(1) == 1) finish_success();
  }

  void join() {
    for (auto& w : workers_) w.join();
    workers_.clear();
  }

  std::vector<std::thread> workers_;
  std::atomic<int> remaining_{0};
#ifdef FAKE_VARIANT_EMITS_AFTER_GRACE
  std::mutex mutex_;
  std::condition_variable interrupted_cv_;
  bool interrupted_ = false;
#endif
};

constexpr const char* kFeatures[] = {AGENTRY_FEATURE_INTERRUPT, nullptr};
constexpr agentry_backend_descriptor_t kDescriptor{
    AGENTRY_PLUGIN_ABI_VERSION_INIT, FAKE_BACKEND_ID, "Fake " FAKE_BACKEND_ID, "agentry tests", "0.0.1",
    "A purpose-built misbehaving (or not) backend for the ABI tests.", kFeatures};
constexpr agentry::plugin::BackendType kTypes[] = {agentry::plugin::backend_type<FakeBackend>(kDescriptor)};

#ifdef FAKE_VARIANT_INIT_FAILS
constexpr agentry::plugin::LibraryHooks kHooks{[](const char*) { return false; }, nullptr};
#else
constexpr agentry::plugin::LibraryHooks kHooks{};
#endif
using Library = agentry::plugin::Library<kTypes, kHooks>;
}  // namespace

#if defined(FAKE_VARIANT_NO_ENTRY)
extern "C" AGENTRY_PLUGIN_EXPORT const agentry_plugin_entry_t fake_misnamed_entry = Library::entry;
#elif defined(FAKE_VARIANT_WRONG_MAJOR)
extern "C" AGENTRY_PLUGIN_EXPORT const agentry_plugin_entry_t agentry_plugin_entry = {
    {99, 0, 0}, Library::entry.init, Library::entry.deinit, Library::entry.get_factory};
#else
extern "C" AGENTRY_PLUGIN_EXPORT const agentry_plugin_entry_t agentry_plugin_entry = Library::entry;
#endif
