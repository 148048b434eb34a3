#include "api/run_streams.hpp"

#include "core/ids.hpp"
#include "core/log.hpp"
#include "events/browser_frames.hpp"
#include "events/projections.hpp"

#include <boost/json/serialize.hpp>

#include <mutex>
#include <set>

namespace agentry::api {
namespace json = boost::json;
using events::Channel;
using events::Frame;

namespace {

/// The waker, set once, called on change. The bus holds only a weak reference, so a
/// notification racing with the end of a connection never reaches a destroyed stream.
class StreamBase : public EventStream, public std::enable_shared_from_this<StreamBase> {
 protected:
  virtual void on_notification(const events::Notification&) { wake(); }
  void subscribe(events::EventBus& bus, Channel channel, std::string run_id) {
    subscription_ = bus.subscribe(channel, std::move(run_id),
                                  [weak = weak_from_this()](const events::Notification& n) {
                                    if (auto self = weak.lock()) self->on_notification(n);
                                  });
  }
  void wake() {
    std::function<void()> w;
    {
      std::lock_guard lock(mutex_);
      w = waker_;
    }
    if (w) w();
  }
  void set_waker(std::function<void()> w) {
    std::lock_guard lock(mutex_);
    waker_ = std::move(w);
  }
  std::mutex mutex_;
  events::EventBus::Subscription subscription_;

 private:
  std::function<void()> waker_;
};

Frame object_frame(const json::object& event) { return events::make_frame(json::serialize(event)); }

/// A run's timeline: the bus's live feed, which reads the store only to catch up.
class TimelineStream final : public EventStream {
 public:
  TimelineStream(engine::Engine& engine, std::string run_id, std::int64_t after)
      : engine_(engine), run_id_(std::move(run_id)), after_(after) {}

  const char* channel() const override { return "timeline"; }

  void start(std::function<void()> wake) override {
    subscriber_ = engine_.bus().timeline().subscribe(run_id_, after_, std::move(wake));
    // Driven by another member: its deltas are relayed here while this stream lasts.
    relay_ = engine_.relay_timeline(run_id_);
  }

  StreamBatch poll(std::size_t max_frames, bool look_in_store) override {
    auto history = [this](std::int64_t after, std::int64_t upto,
                          std::size_t limit) -> std::optional<std::vector<Frame>> {
      // Frames written straight from the stored text: every subscriber catching up reads
      // here, and its page is the only thing it keeps.
      std::vector<Frame> frames;
      frames.reserve(std::min<std::size_t>(limit, 1024));
      events::FramePacker packer;  // a page's frames are kept and let go together
      auto read = engine_.visit_timeline(run_id_, after, upto, limit, [&](const core::TimelineEventView& e) {
        if (frames.size() == frames.capacity()) packer.flush();  // the slots are about to move
        packer.add(&frames.emplace_back(), {run_id_, e.cursor, e.kind, e.attempt_number, e.at, e.payload_json},
                   e.cursor);
      });
      packer.flush();
      if (!read) return std::nullopt;
      return frames;
    };
    auto last_cursor = [this]() -> std::optional<std::int64_t> {
      auto last = engine_.timeline_last_cursor(run_id_);
      if (!last) return std::nullopt;
      return *last;
    };
    auto batch = subscriber_->poll(history, last_cursor, max_frames, look_in_store);
    return {std::move(batch.frames), batch.closed, batch.more};
  }

  std::optional<StreamBatch> poll_ready(std::size_t max_frames) override {
    auto batch = subscriber_->poll_window(max_frames);
    if (!batch) return std::nullopt;
    return StreamBatch{std::move(batch->frames), batch->closed, batch->more};
  }

 private:
  engine::Engine& engine_;
  std::string run_id_;
  std::int64_t after_;
  std::shared_ptr<events::TimelineSubscriber> subscriber_;
  std::shared_ptr<void> relay_;
};

/// A run's audit trail: re-read from the store after the last cursor sent.
class AuditStream final : public StreamBase {
 public:
  AuditStream(engine::Engine& engine, std::string run_id, std::int64_t after)
      : engine_(engine), run_id_(std::move(run_id)), cursor_(after) {}

  const char* channel() const override { return "audit"; }

  void start(std::function<void()> w) override {
    set_waker(std::move(w));
    subscribe(engine_.bus(), Channel::audit, run_id_);
    wake();  // the first poll replays history after `after`
  }

  StreamBatch poll(std::size_t max_frames, bool) override {
    StreamBatch out;
    auto page = engine_.audit(run_id_, core::EventPageQuery{cursor_, max_frames});
    if (!page) return out.closed = true, out;
    for (const auto& e : *page)
      out.frames.push_back(events::make_frame(json::serialize(events::audit_event_json(e)), e.cursor));
    if (!page->empty()) cursor_ = page->back().cursor;
    out.more = page->size() == max_frames;
    return out;
  }

 private:
  engine::Engine& engine_;
  std::string run_id_;
  std::int64_t cursor_;
};

class DetailStream final : public StreamBase {
 public:
  DetailStream(engine::Engine& engine, std::string run_id) : engine_(engine), run_id_(std::move(run_id)) {}

  const char* channel() const override { return "detail"; }

  void start(std::function<void()> w) override {
    set_waker(std::move(w));
    subscribe(engine_.bus(), Channel::detail, run_id_);
    wake();
  }

  StreamBatch poll(std::size_t, bool) override {
    StreamBatch out;
    auto view = engine_.view(run_id_);
    if (!view) {
      out.closed = true;
      out.frames.push_back(object_frame({{"type", "run_removed"}, {"runId", run_id_}}));
      return out;
    }
    // What the run shows can change without a write of its own (a dependency ended), so
    // the snapshot itself, not the run's revision, says whether there is news.
    auto detail = events::run_detail({view->run, view->tasks, view->sessions, view->attempts});
    auto text = json::serialize(json::object{{"type", "run_detail"}, {"run", std::move(detail)}});
    if (text == sent_) return out;
    out.frames.push_back(events::make_frame(text));
    sent_ = std::move(text);
    return out;
  }

 private:
  engine::Engine& engine_;
  std::string run_id_;
  std::string sent_;  // the last snapshot sent
};

/// A run's browser live view: the newest frame at each wake, never a queue of old ones
/// (events/browser_frames.hpp). Before any frame, one browser_unavailable saying why.
class BrowserStream final : public StreamBase {
 public:
  BrowserStream(engine::Engine& engine, std::string run_id) : engine_(engine), run_id_(std::move(run_id)) {}

  const char* channel() const override { return "browser"; }

  void start(std::function<void()> w) override {
    set_waker(std::move(w));
    subscribe(engine_.bus(), Channel::browser, run_id_);
    wake();
  }

  StreamBatch poll(std::size_t, bool) override {
    StreamBatch out;
    auto latest = engine_.bus().browser().latest(run_id_);
    if (latest && latest->seq == sent_seq_) return out;
    if (latest) {
      out.frames.push_back(latest->frame);
      sent_seq_ = latest->seq;
      return out;
    }
    // No view kept: the stream just began, or the run was deleted.
    auto view = engine_.view(run_id_);
    if (!view) {
      out.closed = true;
      out.frames.push_back(object_frame({{"type", "run_removed"}, {"runId", run_id_}}));
      return out;
    }
    if (!explained_) out.frames.push_back(events::no_view_frame(view->run));
    explained_ = true;
    return out;
  }

 private:
  engine::Engine& engine_;
  std::string run_id_;
  std::uint64_t sent_seq_ = 0;
  bool explained_ = false;
};

/// Every run's summary: a set of runs changed since the last poll, so a subscriber that
/// falls behind gets each run once, as it is now.
class SummaryStream final : public StreamBase {
 public:
  explicit SummaryStream(engine::Engine& engine) : engine_(engine) {}

  const char* channel() const override { return "summary"; }

  void start(std::function<void()> w) override {
    set_waker(std::move(w));
    subscribe(engine_.bus(), Channel::summary, "");
  }

  void on_notification(const events::Notification& n) override {
    {
      std::lock_guard lock(mutex_);
      if (dirty_.size() >= max_pending_summaries) overflow_ = true;
      else dirty_.insert(n.run_id);
    }
    wake();
  }

  StreamBatch poll(std::size_t max_frames, bool) override {
    std::set<std::string> dirty;
    StreamBatch out;
    {
      std::lock_guard lock(mutex_);
      while (!dirty_.empty() && dirty.size() < max_frames) dirty.insert(dirty_.extract(dirty_.begin()));
      out.more = !dirty_.empty();
      if (overflow_) out.closed = true;
    }
    for (const auto& id : dirty) {
      auto view = engine_.view(id);
      json::object event;
      if (view) {
        std::optional<core::Session> latest;
        if (!view->sessions.empty()) latest = events::with_attempt_range(view->sessions.back(), view->attempts);
        event = {{"type", "summary_upsert"}, {"summary", events::run_summary(view->run, core::tally(view->tasks), latest)}};
      } else {
        event = {{"type", "summary_removed"}, {"runId", id}};
      }
      out.frames.push_back(object_frame(event));
    }
    return out;
  }

 private:
  engine::Engine& engine_;
  std::set<std::string> dirty_;
  bool overflow_ = false;
};

}  // namespace

StreamBatch poll_stream(EventStream& source, std::size_t max_frames, bool look_in_store) {
  try {
    return source.poll(max_frames, look_in_store);
  } catch (const std::exception& e) {
    core::log_error("event stream failed", {{"channel", source.channel()}, {"error", e.what()}});
    StreamBatch closed;
    closed.closed = true;
    return closed;
  }
}

core::Result<std::shared_ptr<EventStream>> open_stream(engine::Engine& engine, const StreamRequest& request) {
  const bool summary = request.channel == "run_summary";
  if (!summary && request.channel != "run_detail" && request.channel != "run_timeline" &&
      request.channel != "run_audit" && request.channel != "run_browser")
    return core::fail(core::ErrorCode::invalid_request,
                      "channel must be run_summary, run_detail, run_timeline, run_audit or run_browser",
                      {{"field", "channel"}});
  if (summary) {
    if (!request.run_id.empty())
      return core::fail(core::ErrorCode::invalid_request, "run_summary covers every run; leave runId out");
    return std::shared_ptr<EventStream>(std::make_shared<SummaryStream>(engine));
  }
  if (!core::is_valid_run_id(request.run_id))
    return core::fail(core::ErrorCode::invalid_request, "'" + request.run_id + "' is not a valid run id",
                      {{"field", "runId"}});
  // The run must exist before the stream starts, so a bad id gets an error, not a stream.
  if (auto view = engine.view(request.run_id); !view) return view.failure();
  if (request.channel == "run_detail") return std::shared_ptr<EventStream>(std::make_shared<DetailStream>(engine, request.run_id));
  if (request.channel == "run_browser")
    return std::shared_ptr<EventStream>(std::make_shared<BrowserStream>(engine, request.run_id));
  if (request.channel == "run_timeline")
    return std::shared_ptr<EventStream>(std::make_shared<TimelineStream>(engine, request.run_id, request.after));
  return std::shared_ptr<EventStream>(std::make_shared<AuditStream>(engine, request.run_id, request.after));
}

}  // namespace agentry::api
