// agentry plugin C++ glue for the "agentry.ask/1" backend extension (ext/ask.h).
//
//   class MyBackend final : public agentry::plugin::Backend, public agentry::plugin::Askable {
//     agentry_status_t ask(std::string ask_id, std::string request_json) override;
//     const void* get_extension(std::string_view id) noexcept override {
//       return agentry::plugin::ask_extension_for(id);
//     }
//   };
//   ...later, from any thread: agentry::plugin::answer_ask(host(), ask_id, R"({"answer":"..."})");
#pragma once

#include <string>
#include <string_view>

#include "agentry/plugin/cpp/backend.hpp"
#include "agentry/plugin/ext/ask.h"

namespace agentry::plugin {

// What a Backend implements to offer the extension; the same thread tags as ext/ask.h.
class Askable {
 public:
  virtual ~Askable() = default;
  // [control, idle] Begin answering and return at once; answer_ask() exactly once later.
  virtual agentry_status_t ask(std::string ask_id, std::string request_json) = 0;
};

namespace detail {

struct AskTrampolines {
  static agentry_status_t ask(const agentry_backend_t* b, const char* ask_id, const char* request_json) noexcept {
    auto* backend = static_cast<Backend*>(b->backend_data);
    auto* a = dynamic_cast<Askable*>(backend);
    if (a == nullptr) return AGENTRY_ERR_UNSUPPORTED;
    if (ask_id == nullptr || request_json == nullptr) return AGENTRY_ERR_INVALID_ARGUMENT;
    Trampolines::check_control(*backend, "ask");
    return guarded(*backend, "ask", [&] { return a->ask(ask_id, request_json); });
  }
};

inline constexpr agentry_backend_ask_t kAskTable{sizeof(agentry_backend_ask_t), &AskTrampolines::ask};

}  // namespace detail

// The extension table when `id` names it, else nullptr: a Backend's get_extension().
inline const void* ask_extension_for(std::string_view id) noexcept {
  return id == AGENTRY_EXT_ASK ? &detail::kAskTable : nullptr;
}

// [thread-safe] Sends the answer to `ask_id` through the host's "agentry.ask-answer/1".
// AGENTRY_ERR_UNSUPPORTED when the host does not offer it.
inline agentry_status_t answer_ask(const Host& host, const std::string& ask_id, const std::string& answer_json) noexcept {
  const auto* table = host.extension<agentry_host_ask_answer_t>(AGENTRY_EXT_ASK_ANSWER);
  if (table == nullptr || table->answer == nullptr) return AGENTRY_ERR_UNSUPPORTED;
  return table->answer(host.raw(), ask_id.c_str(), answer_json.c_str());
}

}  // namespace agentry::plugin
