#include "plugin_host/plugin_backend_instance.hpp"

#include "agentry/plugin/ext/ask.h"
#include "agentry/plugin/ext/detach.h"
#include "agentry/plugin/plugin.h"
#include "core/json_check.hpp"
#include "core/log.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <vector>

namespace agentry::plugin_host {
namespace {

/// Two vector scans: find_first_of("\r\n") looks each byte up in the set, one call a byte,
/// and every event's payload passes here.
bool has_line_break(std::string_view text) {
  return std::memchr(text.data(), '\n', text.size()) != nullptr ||
         std::memchr(text.data(), '\r', text.size()) != nullptr;
}

/// The timeline kind of an ABI event type: the host's name for it from here on.
std::string timeline_kind(std::uint16_t type) {
  switch (type) {
    case AGENTRY_EVENT_MESSAGE_DELTA: return "message.delta";
    case AGENTRY_EVENT_MESSAGE_COMPLETED: return "message.completed";
    case AGENTRY_EVENT_REASONING: return "reasoning";
    case AGENTRY_EVENT_TOOL_STARTED: return "tool.started";
    case AGENTRY_EVENT_TOOL_COMPLETED: return "tool.completed";
    case AGENTRY_EVENT_APPROVAL_REQUEST: return "approval.request";
    case AGENTRY_EVENT_USAGE: return "usage";
    case AGENTRY_EVENT_NOTICE: return "notice";
    case AGENTRY_EVENT_CHECKPOINT: return "session.checkpoint";
    case AGENTRY_EVENT_FINISHED: return "attempt.finished";
    case AGENTRY_EVENT_REASONING_DELTA: return "reasoning.delta";
    case AGENTRY_EVENT_TOOL_OUTPUT_DELTA: return "tool.output.delta";
    case AGENTRY_EVENT_PLAN: return "plan";
    case AGENTRY_EVENT_DIFF: return "diff";
    case AGENTRY_EVENT_BROWSER_FRAME: return "browser.frame";
    default: return "event." + std::to_string(type);  // a type from a newer ABI minor
  }
}

constexpr const char* host_version = "0.1.0";

// What a plugin instance reaches through its host table: the table itself, the sink it
// feeds, and the per-attempt state emit() checks. It is allocated apart from the session
// because it may have to outlive it: a poisoned instance (it ignored an interrupt past the
// grace period) is never destroyed, and its threads may go on calling emit(), log() and
// request_callback() after the session, and the live run behind the sink, are gone. The
// ABI promises the table stays valid until destroy() has returned, which for such an
// instance is never. So the session severs the channel from the sink and leaks it with
// the instance; late calls then get AGENTRY_ERR_INVALID_STATE (log and request_callback
// do nothing) without touching freed memory.
class HostChannel {
 public:
  explicit HostChannel(BackendEventSink& sink) : sink_(&sink) {
    host_.abi_version = AGENTRY_PLUGIN_ABI_VERSION_INIT;
    host_.host_data = this;
    host_.name = "agentry";
    host_.version = host_version;
    host_.emit = &HostChannel::emit;
    host_.log = &HostChannel::log;
    host_.request_callback = &HostChannel::request_callback;
    host_.get_extension = &HostChannel::get_extension;
  }
  HostChannel(const HostChannel&) = delete;
  HostChannel& operator=(const HostChannel&) = delete;

  const agentry_host_t* table() const { return &host_; }

  /// A new attempt begins on the instance: a terminal event is allowed again.
  void begin_attempt() { terminal_seen_ = false; }

  /// From now on no callback reaches the sink. Waits for the calls in progress.
  void sever() {
    std::unique_lock lock(mutex_);
    sink_ = nullptr;
  }

 private:
  static HostChannel* self(const agentry_host_t* host) {
    return host ? static_cast<HostChannel*>(host->host_data) : nullptr;
  }

  static agentry_status_t emit(const agentry_host_t* host, const agentry_event_t* e) noexcept {
    auto* channel = self(host);
    if (!channel) return AGENTRY_ERR_INVALID_ARGUMENT;
    try {
      // Shared: emit is the hot path and may come from many plugin threads at once.
      std::shared_lock lock(channel->mutex_);
      if (!channel->sink_) return AGENTRY_ERR_INVALID_STATE;
      return channel->accept(*channel->sink_, e);
    } catch (...) {
      return AGENTRY_ERR_INTERNAL;
    }
  }

  agentry_status_t accept(BackendEventSink& sink, const agentry_event_t* e) {
    auto violation = [&](int policy, const std::string& what) { sink.on_log(AGENTRY_LOG_ERROR, what, policy); };
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
    const std::string_view text(e->payload_json ? e->payload_json : "", e->payload_size);
    const bool ephemeral = (e->flags & AGENTRY_EVENT_FLAG_EPHEMERAL) != 0;
    // Only the events whose payload is always read keep the object; the others are only
    // checked, and parsed again by whoever reads one (BackendEvent::payload()).
    const bool keep = ephemeral || terminal;
    // A line break (only ever whitespace between tokens) would split an SSE frame: such
    // a payload is stored as written again from its parse.
    const bool rewrite = text.empty() || has_line_break(text);
    const auto not_an_object = [&] {
      violation(7, "event payload is not a JSON object (type " + std::to_string(e->type) + ")");
      return AGENTRY_ERR_INVALID_ARGUMENT;
    };
    boost::json::value parsed;
    std::string stored;
    if (!keep && !rewrite) {
      // The usual durable event: only checked (no value built), stored as it came.
      if (!core::is_json_object(text)) return not_an_object();
      stored.assign(text);
    } else {
      boost::system::error_code ec;
      parsed = text.empty() ? boost::json::value(boost::json::object()) : boost::json::parse(text, ec);
      if (ec || !parsed.is_object()) return not_an_object();
      stored = rewrite ? boost::json::serialize(parsed) : std::string(text);
    }
    std::uint64_t last = last_seq_.load();
    while (e->seq > last && !last_seq_.compare_exchange_weak(last, e->seq)) {
    }
    if (e->seq <= last && !seq_warned_.exchange(true))
      violation(6, "event seq " + std::to_string(e->seq) + " does not increase (last " + std::to_string(last) + ")");
    if (terminal && terminal_seen_.exchange(true)) return AGENTRY_ERR_INVALID_STATE;
    BackendEvent event{timeline_kind(e->type), ephemeral, terminal, e->seq, e->time_ns, std::move(stored), {}};
    if (keep) event.parsed = std::move(parsed.as_object());
    if (!sink.offer(std::move(event))) {
      if (terminal) terminal_seen_ = false;
      return AGENTRY_ERR_BUSY;
    }
    return AGENTRY_OK;
  }

  static void log(const agentry_host_t* host, std::int32_t severity, const char* message) noexcept {
    auto* channel = self(host);
    if (!channel) return;
    try {
      std::shared_lock lock(channel->mutex_);
      if (channel->sink_) channel->sink_->on_log(severity, message ? message : "", 0);
    } catch (...) {
    }
  }

  static void request_callback(const agentry_host_t* host) noexcept {
    auto* channel = self(host);
    if (!channel) return;
    try {
      std::shared_lock lock(channel->mutex_);
      if (channel->sink_) channel->sink_->on_callback_requested();
    } catch (...) {
    }
  }

  static const void* get_extension(const agentry_host_t*, const char* id) noexcept {
    static constexpr agentry_host_ask_answer_t ask_answer{sizeof(agentry_host_ask_answer_t), &HostChannel::answer};
    if (id != nullptr && std::string_view(id) == AGENTRY_EXT_ASK_ANSWER) return &ask_answer;
    return nullptr;
  }

  static agentry_status_t answer(const agentry_host_t* host, const char* ask_id, const char* answer_json) noexcept {
    auto* channel = self(host);
    if (!channel || !ask_id || !answer_json) return AGENTRY_ERR_INVALID_ARGUMENT;
    try {
      boost::system::error_code ec;
      auto parsed = boost::json::parse(answer_json, ec);
      if (ec || !parsed.is_object()) return AGENTRY_ERR_INVALID_ARGUMENT;
      std::shared_lock lock(channel->mutex_);
      if (!channel->sink_) return AGENTRY_ERR_INVALID_STATE;
      return channel->sink_->on_answer(ask_id, std::move(parsed.as_object())) ? AGENTRY_OK : AGENTRY_ERR_INVALID_STATE;
    } catch (...) {
      return AGENTRY_ERR_INTERNAL;
    }
  }

  agentry_host_t host_{};
  std::shared_mutex mutex_;
  BackendEventSink* sink_;  // null once severed; guarded by mutex_
  std::atomic<bool> terminal_seen_{false};
  std::atomic<std::uint64_t> last_seq_{0};
  std::atomic<bool> seq_warned_{false};
};

// Poisoned instances, their host channels and their libraries, deliberately never freed
// (the instances' threads may still run and call back, in the library's code). They are
// held here, reachable from a global, so that a leak checker sees them as what they are:
// kept on purpose, not lost. Holding the library also keeps it loaded and never deinit()ed.
void keep_forever(std::shared_ptr<PluginLibrary> library, const agentry_backend_t* instance, HostChannel* channel) {
  struct Kept {
    std::shared_ptr<PluginLibrary> library;
    const agentry_backend_t* instance;
    HostChannel* channel;
  };
  static std::mutex mutex;
  static auto* kept = new std::vector<Kept>();  // never destroyed, not even at exit
  std::lock_guard lock(mutex);
  kept->push_back({std::move(library), instance, channel});
}

class PluginBackendInstance final : public BackendInstance {
 public:
  PluginBackendInstance(std::shared_ptr<PluginLibrary> library, const BackendDescriptor& backend,
                       BackendEventSink& sink)
      : library_(std::move(library)), backend_id_(backend.id), channel_(std::make_unique<HostChannel>(sink)) {}

  ~PluginBackendInstance() override {
    if (!instance_) return;
    if (poisoned_) {
      core::log_error("leaking a misbehaving backend instance instead of destroying it (policy 8)",
                      {{"backend", backend_id_}, {"path", library_->path().string()}});
      // Its threads may still call back: they find the channel, cut off from the sink.
      channel_->sever();
      keep_forever(library_, instance_, channel_.release());
      return;
    }
    instance_->destroy(instance_);
    library_->instance_destroyed();
    // channel_ goes after this: destroy() has joined the instance's threads.
  }

  core::Result<void> create(const BackendDescriptor& backend) {
    const auto* factory = library_->factory();
    instance_ = factory->create_backend(factory, channel_->table(), backend.id.c_str());
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
      const auto* asking = static_cast<const agentry_backend_ask_t*>(instance_->get_extension(instance_, AGENTRY_EXT_ASK));
      if (asking && asking->struct_size >= offsetof(agentry_backend_ask_t, ask) + sizeof(asking->ask) && asking->ask)
        ask_ = asking;
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

  core::Result<void> ask(const std::string& ask_id, const std::string& request_json) override {
    if (!ask_)
      return core::fail(core::ErrorCode::conflict, "backend '" + backend_id_ + "' does not support ask",
                        {{"backend", backend_id_}, {"reason", "not_supported"}});
    const agentry_status_t status = ask_->ask(instance_, ask_id.c_str(), request_json.c_str());
    if (status == AGENTRY_ERR_UNSUPPORTED)
      return core::fail(core::ErrorCode::conflict,
                        "backend '" + backend_id_ + "' cannot answer questions with this run's configuration",
                        {{"backend", backend_id_}, {"reason", "not_supported"}});
    return check("ask", status);
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
    channel_->begin_attempt();
    return check(what, call(&p));
  }

  core::Result<void> check(const char* call, agentry_status_t status) {
    if (status == AGENTRY_OK) return core::ok();
    auto code = status == AGENTRY_ERR_UNSUPPORTED || status == AGENTRY_ERR_INVALID_STATE ? core::ErrorCode::conflict
                : status == AGENTRY_ERR_INVALID_ARGUMENT                              ? core::ErrorCode::validation
                                                                                      : core::ErrorCode::internal;
    return core::fail(code, "backend '" + backend_id_ + "' " + call + " failed (status " + std::to_string(status) + ")");
  }

  std::shared_ptr<PluginLibrary> library_;
  std::string backend_id_;
  std::unique_ptr<HostChannel> channel_;  // the instance's host table; outlives the session if poisoned
  const agentry_backend_t* instance_ = nullptr;
  const agentry_backend_detach_t* detach_ = nullptr;  // the instance's ext/detach.h table, if offered
  const agentry_backend_ask_t* ask_ = nullptr;        // the instance's ext/ask.h table, if offered
  bool poisoned_ = false;
};

}  // namespace


core::Result<std::unique_ptr<BackendInstance>> create_plugin_session(std::shared_ptr<PluginLibrary> library,
                                                                    const BackendDescriptor& backend,
                                                                    BackendEventSink& sink) {
  auto session = std::make_unique<PluginBackendInstance>(std::move(library), backend, sink);
  if (auto created = session->create(backend); !created) return created.failure();
  return std::unique_ptr<BackendInstance>(std::move(session));
}

}  // namespace agentry::plugin_host
