// agentry plugin C++ glue: owned copies of the borrowed start() and send_input() args.
//
// The C structs are borrowed for one call (ownership rule 1); a backend that hands
// them to a worker thread needs copies. These types make that copy in one step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentry/plugin/plugin.h"

namespace agentry::plugin {

namespace detail {
inline std::string copy_str(const char* s) { return s != nullptr ? std::string(s) : std::string(); }
inline std::string copy_str(const char* s, uint64_t size) {
  return s != nullptr ? std::string(s, static_cast<std::size_t>(size)) : std::string();
}
// True when a struct whose first field is `struct_size` is big enough to hold the
// member that ends at `end` (fields a later minor appends are read only when present).
inline bool has_bytes(uint32_t struct_size, std::size_t end) { return struct_size >= end; }
}  // namespace detail

struct StartParams {
  std::string run_id;
  std::string session_id;  // "<run id>/s<index>", unique
  uint32_t session_index = 0;
  uint32_t attempt_number = 0;
  std::string workspace_path;  // absolute; the run's working directory
  std::string input_json;      // {"prompt","brief","message"}
  std::string config_json;     // {"backendConfig":{...},"model",...}
  std::optional<std::string> resume_token;  // nullopt on a fresh session
  std::vector<std::string> env;             // "KEY=VALUE" to add to the agent's environment

  // Copies everything `p` points to. Returns nullopt when `p` is NULL or older than the
  // v1.0 layout (the caller answers AGENTRY_ERR_INVALID_ARGUMENT). May throw bad_alloc.
  static std::optional<StartParams> from(const agentry_start_params_t* p) {
    constexpr std::size_t v1_end = offsetof(agentry_start_params_t, env) + sizeof(p->env);
    if (p == nullptr || !detail::has_bytes(p->struct_size, v1_end)) return std::nullopt;
    StartParams out;
    out.run_id = detail::copy_str(p->run_id);
    out.session_id = detail::copy_str(p->session_id);
    out.session_index = p->session_index;
    out.attempt_number = p->attempt_number;
    out.workspace_path = detail::copy_str(p->workspace_path);
    out.input_json = detail::copy_str(p->input_json, p->input_size);
    out.config_json = detail::copy_str(p->config_json, p->config_size);
    if (p->resume_token != nullptr && p->resume_token_size > 0)
      out.resume_token = detail::copy_str(p->resume_token, p->resume_token_size);
    for (const char* const* e = p->env; e != nullptr && *e != nullptr; ++e) out.env.emplace_back(*e);
    return out;
  }
};

struct Input {
  std::string input_id;  // host-generated
  uint32_t kind = 0;     // AGENTRY_INPUT_*
  std::string payload_json;

  // Same contract as StartParams::from().
  static std::optional<Input> from(const agentry_input_t* in) {
    constexpr std::size_t v1_end = offsetof(agentry_input_t, payload_size) + sizeof(in->payload_size);
    if (in == nullptr || !detail::has_bytes(in->struct_size, v1_end)) return std::nullopt;
    Input out;
    out.input_id = detail::copy_str(in->input_id);
    out.kind = in->kind;
    out.payload_json = detail::copy_str(in->payload_json, in->payload_size);
    return out;
  }
};

}  // namespace agentry::plugin
