#include "api/run_streams.hpp"

#include "events/projections.hpp"

#include <boost/json/serialize.hpp>

#include <deque>
#include <mutex>
#include <set>

namespace agentry::api {
namespace json = boost::json;
using events::Channel;

std::string sse_frames(const std::vector<StreamEvent>& events) {
  std::string out;
  for (const auto& e : events) {
    if (!e.id.empty()) out += "id: " + e.id + "\n";
    // No "event:" line: browsers deliver only unnamed events to EventSource.onmessage,
    // and each data object says what it is (type, or kind for timeline events).
    out += "data: " + e.data + "\n\n";  // data is single-line JSON
  }
  return out;
}

namespace {

/// Subscription plumbing shared by every stream: the waker, set once, called on change.
/// The bus holds only a weak reference, so a notification racing with the end of a
/// connection never reaches a destroyed stream.
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

/// Timeline or audit: re-reads the store after the last cursor sent.
class CursorStream final : public StreamBase {
 public:
  CursorStream(engine::Engine& engine, std::string run_id, std::int64_t after, Channel channel)
      : engine_(engine), run_id_(std::move(run_id)), cursor_(after), channel_(channel) {}

  void start(std::function<void()> w) override {
    set_waker(std::move(w));
    subscribe(engine_.bus(), channel_, run_id_);
    wake();  // the first poll replays history after `after`
  }

  void on_notification(const events::Notification& n) override {
    if (n.ephemeral) {
      std::lock_guard lock(mutex_);
      if (ephemeral_.size() >= max_pending_ephemeral) overflow_ = true;
      else ephemeral_.push_back(n.ephemeral);
    }
    wake();
  }

  std::vector<StreamEvent> poll(bool& closed) override {
    std::vector<StreamEvent> out;
    store::EventPageQuery q{cursor_, stream_page};
    std::size_t count = 0;
    if (channel_ == Channel::timeline) {
      auto page = engine_.timeline(run_id_, q);
      if (!page) return closed = true, out;
      for (const auto& e : *page)
        out.push_back({"timeline", json::serialize(events::timeline_event_json(e)), std::to_string(e.cursor)});
      count = page->size();
      if (!page->empty()) cursor_ = page->back().cursor;
    } else {
      auto page = engine_.audit(run_id_, q);
      if (!page) return closed = true, out;
      for (const auto& e : *page)
        out.push_back({"audit", json::serialize(events::audit_event_json(e)), std::to_string(e.cursor)});
      count = page->size();
      if (!page->empty()) cursor_ = page->back().cursor;
    }
    std::deque<std::shared_ptr<const std::string>> ephemeral;
    {
      std::lock_guard lock(mutex_);
      ephemeral.swap(ephemeral_);
      if (overflow_) closed = true;
    }
    for (const auto& e : ephemeral) out.push_back({"timeline", *e, {}});
    if (count == stream_page) wake();  // more history waiting
    return out;
  }

 private:
  engine::Engine& engine_;
  std::string run_id_;
  std::int64_t cursor_;
  Channel channel_;
  std::deque<std::shared_ptr<const std::string>> ephemeral_;
  bool overflow_ = false;
};

json::object detail_of(const engine::RunView& v) {
  return events::run_detail({v.run, v.tasks, v.sessions, v.attempts});
}

class DetailStream final : public StreamBase {
 public:
  DetailStream(engine::Engine& engine, std::string run_id) : engine_(engine), run_id_(std::move(run_id)) {}

  void start(std::function<void()> w) override {
    set_waker(std::move(w));
    subscribe(engine_.bus(), Channel::detail, run_id_);
    wake();
  }

  std::vector<StreamEvent> poll(bool& closed) override {
    auto view = engine_.view(run_id_);
    if (!view) {
      closed = true;
      return {{"detail", json::serialize(json::object{{"type", "run_removed"}, {"runId", run_id_}}), {}}};
    }
    if (view->run.revision == sent_revision_) return {};
    sent_revision_ = view->run.revision;
    return {{"detail", json::serialize(json::object{{"type", "run_detail"}, {"run", detail_of(*view)}}), {}}};
  }

 private:
  engine::Engine& engine_;
  std::string run_id_;
  std::int64_t sent_revision_ = -1;
};

class SummaryStream final : public StreamBase {
 public:
  explicit SummaryStream(engine::Engine& engine) : engine_(engine) {}

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

  std::vector<StreamEvent> poll(bool& closed) override {
    std::set<std::string> dirty;
    {
      std::lock_guard lock(mutex_);
      dirty.swap(dirty_);
      if (overflow_) closed = true;
    }
    std::vector<StreamEvent> out;
    for (const auto& id : dirty) {
      auto view = engine_.view(id);
      json::object event;
      if (view) {
        std::optional<core::Session> latest;
        if (!view->sessions.empty()) latest = view->sessions.back();
        event = {{"type", "summary_upsert"}, {"summary", events::run_summary(view->run, core::tally(view->tasks), latest)}};
      } else {
        event = {{"type", "summary_removed"}, {"runId", id}};
      }
      out.push_back({"summary", json::serialize(event), {}});
    }
    return out;
  }

 private:
  engine::Engine& engine_;
  std::set<std::string> dirty_;
  bool overflow_ = false;
};

}  // namespace

std::shared_ptr<EventStream> make_summary_stream(engine::Engine& engine) {
  return std::make_shared<SummaryStream>(engine);
}
std::shared_ptr<EventStream> make_detail_stream(engine::Engine& engine, std::string run_id) {
  return std::make_shared<DetailStream>(engine, std::move(run_id));
}
std::shared_ptr<EventStream> make_timeline_stream(engine::Engine& engine, std::string run_id, std::int64_t after) {
  return std::make_shared<CursorStream>(engine, std::move(run_id), after, Channel::timeline);
}
std::shared_ptr<EventStream> make_audit_stream(engine::Engine& engine, std::string run_id, std::int64_t after) {
  return std::make_shared<CursorStream>(engine, std::move(run_id), after, Channel::audit);
}

}  // namespace agentry::api
