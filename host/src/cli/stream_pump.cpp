#include "cli/stream_pump.hpp"

#include "api/run_streams.hpp"

#include <boost/json/parse.hpp>

#include <condition_variable>
#include <mutex>

namespace agentry::cli {
namespace json = boost::json;

struct StreamPump::State {
  std::mutex mutex;
  std::condition_variable cv;
  bool woken = false;
  bool stopping = false;
};

StreamEvent to_notification(const events::Frame& frame, const char* channel, const std::string& subscription_id,
                            const std::string& run_id) {
  StreamEvent out;
  out.method = std::string("run.") + channel;
  json::error_code ec;
  json::value data = json::parse(frame->json(), ec);
  if (ec) data = json::object{};
  out.params["subscriptionId"] = subscription_id;
  const std::string_view c(channel);
  if (c == "timeline" || c == "audit") {
    out.params["runId"] = run_id;
    out.params["cursor"] = frame->cursor > 0 ? json::value(frame->cursor) : json::value(nullptr);
    out.params["event"] = std::move(data);
  } else if (data.is_object()) {
    for (auto& [key, value] : data.as_object()) out.params[key] = value;
  }
  return out;
}

StreamPump::StreamPump(std::shared_ptr<api::EventStream> source, std::string subscription_id, std::string run_id,
                       StreamHandlers handlers, std::chrono::milliseconds interval)
    : source_(std::move(source)),
      subscription_id_(std::move(subscription_id)),
      run_id_(std::move(run_id)),
      handlers_(std::move(handlers)),
      interval_(interval),
      state_(std::make_shared<State>()) {
  // The waker may outlive this pump (the bus fires on its own threads): it holds the
  // shared state only.
  source_->start([state = state_] {
    {
      std::lock_guard lock(state->mutex);
      state->woken = true;
    }
    state->cv.notify_one();
  });
  thread_ = std::thread([this] { loop(); });
}

StreamPump::~StreamPump() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->cv.notify_one();
  if (thread_.joinable()) thread_.join();
}

void StreamPump::loop() {
  bool more = false;
  for (;;) {
    bool woken = more;
    {
      std::unique_lock lock(state_->mutex);
      if (!more) woken = state_->cv.wait_for(lock, interval_, [&] { return state_->woken || state_->stopping; });
      if (state_->stopping) return;
      state_->woken = false;
    }
    // Nobody wakes this process for what another one (a daemon) writes: the
    // interval's polls look in the store.
    auto batch = api::poll_stream(*source_, api::stream_batch_frames, !woken);
    more = batch.more;
    for (const auto& frame : batch.frames) {
      {
        std::lock_guard lock(state_->mutex);
        if (state_->stopping) return;
      }
      if (handlers_.on_event)
        handlers_.on_event(to_notification(frame, source_->channel(), subscription_id_, run_id_));
    }
    if (batch.closed) {
      if (handlers_.on_closed)
        handlers_.on_closed("the stream ended (its run was deleted)");
      return;
    }
  }
}

}  // namespace agentry::cli
