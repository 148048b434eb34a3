#include "plugins/plugin_backend_session.hpp"

#include "agentry/plugin/ext/detach.h"
#include "agentry/plugin/plugin.h"
#include "core/log.hpp"

#include <boost/json/parse.hpp>

#include <atomic>
#include <cstddef>

namespace agentry::plugins {
namespace {

constexpr const char* host_version = "0.1.0";

class PluginBackendSession final : public BackendSession {
 public:
  PluginBackendSession(std::shared_ptr<PluginLibrary> library, const BackendDescriptor& backend,
                       BackendEventSink& sink)
      : library_(std::move(library)), backend_id_(backend.id), sink_(sink) {
    host_.abi_version = AGENTRY_PLUGIN_ABI_VERSION_INIT;
    host_.host_data = this;
    host_.name = "agentry";
    host_.version = host_version;
    host_.emit = &PluginBackendSession::emit;
    host_.log = &PluginBackendSession::log;
    host_.request_callback = &PluginBackendSession::request_callback;
    host_.get_extension = &PluginBackendSession::get_extension;
  }

  ~PluginBackendSession() override {
    if (!instance_) return;
    if (poisoned_) {
      core::log_error("leaking a misbehaving backend instance instead of destroying it (policy 8)",
                      {{"backend", backend_id_}, {"path", library_->path().string()}});
      return;  // the library's instance count stays up, so it is never unloaded either
    }
    instance_->destroy(instance_);
    library_->instance_destroyed();
  }

  core::Result<void> create(const BackendDescriptor& backend) {
    const auto* factory = library_->factory();
    instance_ = factory->create_backend(factory, &host_, backend.id.c_str());
    if (!instance_)
      return core::fail(core::ErrorCode::internal, "backend '" + backend_id_ + "' failed to create an instance");
    library_->instance_created();
    if (!instance_->init || !instance_->start || !instance_->interrupt || !instance_->destroy)
      return core::fail(core::ErrorCode::internal, "backend '" + backend_id_ + "' instance has NULL functions");
    if (auto status = instance_->init(instance_); status != AGENTRY_OK)
      return core::fail(core::ErrorCode::internal,
                        "backend '" + backend_id_ + "' failed to initialize (status " + std::to_string(status) + ")");
    if (instance_->get_extension) {
      const void* found = instance_->get_extension(instance_, AGENTRY_EXT_DETACH);
      const auto* table = static_cast<const agentry_backend_detach_t*>(found);
      constexpr std::size_t v1_size = offsetof(agentry_backend_detach_t, adopt) + sizeof(table->adopt);
      if (table && table->struct_size >= v1_size && table->detach && table->adopt) detach_ = table;
    }
    return core::ok();
  }

  core::Result<void> start(const StartRequest& r) override {
    return begin("start", r, [this](const agentry_start_params_t* p) { return instance_->start(instance_, p); });
  }

  core::Result<void> adopt(const StartRequest& r) override {
    if (!detach_) return core::fail(core::ErrorCode::conflict, "backend '" + backend_id_ + "' cannot adopt a run");
    return begin("adopt", r, [this](const agentry_start_params_t* p) { return detach_->adopt(instance_, p); });
  }

  core::Result<void> detach(const std::string& reason) override {
    if (!detach_) return core::fail(core::ErrorCode::conflict, "backend '" + backend_id_ + "' cannot detach");
    return check("detach", detach_->detach(instance_, reason.c_str()));
  }

  core::Result<void> send_input(InputKind kind, const std::string& input_id, const std::string& payload) override {
    if (!instance_->send_input)
      return core::fail(core::ErrorCode::conflict, "backend '" + backend_id_ + "' does not accept input");
    agentry_input_t input{};
    input.struct_size = sizeof input;
    input.input_id = input_id.c_str();
    input.kind = static_cast<std::uint32_t>(kind);
    input.payload_json = payload.c_str();
    input.payload_size = payload.size();
    return check("send_input", instance_->send_input(instance_, &input));
  }

  core::Result<void> interrupt(const std::string& reason) override {
    return check("interrupt", instance_->interrupt(instance_, reason.c_str()));
  }

  void on_callback() override {
    if (instance_->on_callback) instance_->on_callback(instance_);
  }

  void poison() override { poisoned_ = true; }
  const std::string& backend_id() const override { return backend_id_; }

 private:
  template <class Call>
  core::Result<void> begin(const char* what, const StartRequest& r, Call&& call) {
    std::vector<const char*> env;
    for (const auto& e : r.env) env.push_back(e.c_str());
    env.push_back(nullptr);
    agentry_start_params_t p{};
    p.struct_size = sizeof p;
    p.run_id = r.run_id.c_str();
    p.session_id = r.session_id.c_str();
    p.session_index = r.session_index;
    p.attempt_number = r.attempt_number;
    p.workspace_path = r.workspace_path.c_str();
    p.input_json = r.input_json.c_str();
    p.input_size = r.input_json.size();
    p.config_json = r.config_json.c_str();
    p.config_size = r.config_json.size();
    p.resume_token = r.resume_token ? r.resume_token->c_str() : nullptr;
    p.resume_token_size = r.resume_token ? r.resume_token->size() : 0;
    p.env = env.data();
    terminal_seen_ = false;
    return check(what, call(&p));
  }

  core::Result<void> check(const char* call, agentry_status_t status) {
    if (status == AGENTRY_OK) return core::ok();
    auto code = status == AGENTRY_ERR_UNSUPPORTED || status == AGENTRY_ERR_INVALID_STATE ? core::ErrorCode::conflict
                : status == AGENTRY_ERR_INVALID_ARGUMENT                              ? core::ErrorCode::validation
                                                                                      : core::ErrorCode::internal;
    return core::fail(code, "backend '" + backend_id_ + "' " + call + " failed (status " + std::to_string(status) + ")");
  }

  void violation(int policy, const std::string& what) { sink_.on_log(AGENTRY_LOG_ERROR, what, policy); }

  static PluginBackendSession* self(const agentry_host_t* host) {
    return host ? static_cast<PluginBackendSession*>(host->host_data) : nullptr;
  }

  static agentry_status_t emit(const agentry_host_t* host, const agentry_event_t* e) noexcept {
    auto* s = self(host);
    if (!s) return AGENTRY_ERR_INVALID_ARGUMENT;
    try {
      return s->accept(e);
    } catch (...) {
      return AGENTRY_ERR_INTERNAL;
    }
  }

  agentry_status_t accept(const agentry_event_t* e) {
    constexpr std::size_t v1_size = offsetof(agentry_event_t, payload_size) + sizeof(std::uint64_t);
    if (!e || e->struct_size < v1_size || (!e->payload_json && e->payload_size > 0)) {
      violation(7, "emit() with a malformed event header");
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    if (e->payload_size > AGENTRY_EVENT_MAX_PAYLOAD_BYTES) {
      violation(7, "event payload of " + std::to_string(e->payload_size) + " bytes is over the limit");
      return AGENTRY_ERR_TOO_LARGE;
    }
    const bool terminal = (e->flags & AGENTRY_EVENT_FLAG_TERMINAL) != 0;
    if (terminal != (e->type == AGENTRY_EVENT_FINISHED)) {
      violation(5, "only a FINISHED event may be, and must be, flagged terminal (type " + std::to_string(e->type) + ")");
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    if (terminal_seen_.load()) {
      violation(5, "event emitted after the terminal event");
      return AGENTRY_ERR_INVALID_STATE;
    }
    std::string payload(e->payload_json ? e->payload_json : "", e->payload_size);
    boost::system::error_code ec;
    auto parsed = boost::json::parse(payload.empty() ? std::string("{}") : payload, ec);
    if (ec || !parsed.is_object()) {
      violation(7, "event payload is not a JSON object (type " + std::to_string(e->type) + ")");
      return AGENTRY_ERR_INVALID_ARGUMENT;
    }
    if (payload.empty()) payload = "{}";
    std::uint64_t last = last_seq_.load();
    while (e->seq > last && !last_seq_.compare_exchange_weak(last, e->seq)) {
    }
    if (e->seq <= last && !seq_warned_.exchange(true))
      violation(6, "event seq " + std::to_string(e->seq) + " does not increase (last " + std::to_string(last) + ")");
    if (terminal && terminal_seen_.exchange(true)) return AGENTRY_ERR_INVALID_STATE;
    BackendEvent event{e->type, e->flags, e->seq, e->time_ns, std::move(payload)};
    if (!sink_.offer(std::move(event))) {
      if (terminal) terminal_seen_ = false;
      return AGENTRY_ERR_BUSY;
    }
    return AGENTRY_OK;
  }

  static void log(const agentry_host_t* host, std::int32_t severity, const char* message) noexcept {
    auto* s = self(host);
    if (!s) return;
    try {
      s->sink_.on_log(severity, message ? message : "", 0);
    } catch (...) {
    }
  }

  static void request_callback(const agentry_host_t* host) noexcept {
    auto* s = self(host);
    if (!s) return;
    try {
      s->sink_.on_callback_requested();
    } catch (...) {
    }
  }

  static const void* get_extension(const agentry_host_t*, const char*) noexcept { return nullptr; }

  std::shared_ptr<PluginLibrary> library_;
  std::string backend_id_;
  BackendEventSink& sink_;
  agentry_host_t host_{};
  const agentry_backend_t* instance_ = nullptr;
  const agentry_backend_detach_t* detach_ = nullptr;  // the instance's ext/detach.h table, if offered
  std::atomic<bool> terminal_seen_{false};
  std::atomic<std::uint64_t> last_seq_{0};
  std::atomic<bool> seq_warned_{false};
  bool poisoned_ = false;
};

}  // namespace

bool BackendEvent::ephemeral() const { return (flags & AGENTRY_EVENT_FLAG_EPHEMERAL) != 0; }
bool BackendEvent::terminal() const { return (flags & AGENTRY_EVENT_FLAG_TERMINAL) != 0; }

core::Result<std::unique_ptr<BackendSession>> create_plugin_session(std::shared_ptr<PluginLibrary> library,
                                                                    const BackendDescriptor& backend,
                                                                    BackendEventSink& sink) {
  auto session = std::make_unique<PluginBackendSession>(std::move(library), backend, sink);
  if (auto created = session->create(backend); !created) return created.failure();
  return std::unique_ptr<BackendSession>(std::move(session));
}

}  // namespace agentry::plugins
