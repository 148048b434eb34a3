#include "cli/stream_pump.hpp"

#include <boost/json/parse.hpp>

#include <charconv>
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

StreamEvent to_notification(const api::StreamEvent& event, const std::string& subscription_id,
                            const std::string& run_id) {
  StreamEvent out;
  out.method = "run." + event.event;
  json::error_code ec;
  json::value data = json::parse(event.data, ec);
  if (ec) data = json::object{};
  out.params["subscriptionId"] = subscription_id;
  if (event.event == "timeline" || event.event == "audit") {
    out.params["runId"] = run_id;
    std::int64_t cursor = 0;
    auto [end, err] = std::from_chars(event.id.data(), event.id.data() + event.id.size(), cursor);
    if (event.id.empty() || err != std::errc{} || end != event.id.data() + event.id.size())
      out.params["cursor"] = nullptr;
    else
      out.params["cursor"] = cursor;
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
  for (;;) {
    {
      std::unique_lock lock(state_->mutex);
      state_->cv.wait_for(lock, interval_, [&] { return state_->woken || state_->stopping; });
      if (state_->stopping) return;
      state_->woken = false;
    }
    bool closed = false;
    auto events = source_->poll(closed);
    for (const auto& e : events) {
      {
        std::lock_guard lock(state_->mutex);
        if (state_->stopping) return;
      }
      if (handlers_.on_event) handlers_.on_event(to_notification(e, subscription_id_, run_id_));
    }
    if (closed) {
      if (handlers_.on_closed)
        handlers_.on_closed("the stream ended (its run was deleted, or this subscriber fell behind)");
      return;
    }
  }
}

}  // namespace agentry::cli
