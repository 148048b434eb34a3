#include "api/compat/compat_timelines.hpp"

#include "api/compat/timeline_translation.hpp"
#include "api/run_streams.hpp"
#include "engine/engine.hpp"
#include "events/frame.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <deque>
#include <optional>
#include <vector>

namespace agentry::api::compat {
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

json::object stored_envelope(const core::TimelineEvent& e) {
  json::object o{{"runId", e.run_id}, {"cursor", e.cursor}, {"kind", e.kind}, {"at", e.at}, {"payload", e.payload}};
  o["attemptNumber"] = e.attempt_number ? json::value(*e.attempt_number) : json::value(nullptr);
  return o;
}

std::optional<RunFacts> facts_of(engine::Engine& engine, const std::string& run_id) {
  auto view = engine.view(run_id);
  if (!view) return std::nullopt;
  const auto& run = view->run;
  RunFacts f;
  f.agent_name = run.frozen.agent_name;
  if (!run.frozen.assignment_source_path.empty()) f.assignment_source_path = run.frozen.assignment_source_path;
  f.name = run.name;
  f.cwd = run.cwd;
  int last_session = -1;
  for (const auto& s : view->sessions) {
    f.session_prompts[s.index] = s.prompt;
    last_session = std::max(last_session, s.index);
  }
  int session_attempts = 0;
  for (const auto& a : view->attempts)
    if (a.session_index == last_session) ++session_attempts;
  json::array tasks;
  int completed = 0;
  for (const auto& t : view->tasks) {
    if (t.status == core::TaskStatus::completed) ++completed;
    tasks.push_back(json::object{{"id", t.id},
                                 {"title", t.title},
                                 {"body", t.body},
                                 {"status", core::to_string(t.status)},
                                 {"notes", t.notes}});
  }
  f.completion_summary = json::object{{"status", core::to_string(run.status)},
                                      {"sessionAttemptCount", session_attempts},
                                      {"maxAttemptsPerSession", run.frozen.max_attempts_per_session},
                                      {"totalAttemptCount", run.attempt_count},
                                      {"totalSessionCount", run.session_count},
                                      {"tasksCompleted", completed},
                                      {"tasksTotal", static_cast<std::int64_t>(view->tasks.size())},
                                      {"tasks", std::move(tasks)},
                                      {"runId", run.id}};
  return f;
}

}  // namespace

/// One run's translation, its numbered window and the stream of ours it follows.
class RunTranslator {
 public:
  struct Entry {
    std::int64_t cursor;
    events::Frame sse;  // id: cursor, data {runId, cursor, event}
    events::Frame ws;   // the bare event, with the cursor
  };

  RunTranslator(engine::Engine& engine, std::string run_id, std::int64_t counter)
      : engine_(engine), run_id_(std::move(run_id)), translation_(run_id_), counter_(counter) {}

  /// Its lock, taken before it is shown to anyone: whoever finds it waits for load().
  std::unique_lock<std::mutex> hold() { return std::unique_lock(mutex_); }

  /// [holding hold()] Reads the stored timeline, then follows ours from where it ended.
  /// A failure is kept: whoever was waiting for it gets it too.
  core::Result<void> load() {
    auto loaded = read_store_and_follow();
    if (!loaded) failed_ = loaded.error();
    return loaded;
  }

  json::object history_locked() {
    pump();
    touched_ = Clock::now();
    return json::object{{"runId", run_id_}, {"attempts", translation_.attempts()}, {"lastCursor", counter_}};
  }

 private:
  core::Result<void> read_store_and_follow() {
    std::int64_t after = 0;
    for (;;) {
      core::EventPageQuery page;
      page.after = after;
      page.limit = 5000;
      auto events = engine_.timeline(run_id_, page);
      if (!events) return events.failure();
      for (const auto& e : *events) {
        add(translation_.translate(stored_envelope(e), facts()));
        after = e.cursor;
      }
      if (events->size() < page.limit) break;
    }
    auto native = open_stream(engine_, {"run_timeline", run_id_, after});
    if (!native) return native.failure();
    native_ = std::move(*native);
    // Whoever subscribes is told; their poll pumps the stream.
    native_->start([weak = std::weak_ptr<Wakes>(wakes_)] {
      if (auto wakes = weak.lock()) wakes->wake_all();
    });
    return core::ok();
  }


 public:
  core::Result<json::object> history() {
    std::lock_guard lock(mutex_);
    if (failed_) return core::Failure{*failed_};
    return history_locked();
  }

  /// The frames after `position`, at most `max`; `position` moves past them. A reader the
  /// window has left behind skips ahead: the gap in cursors makes its client reload.
  StreamBatch read(std::int64_t& position, std::size_t max, bool websocket) {
    std::lock_guard lock(mutex_);
    if (failed_) return StreamBatch{{}, /*closed=*/true, false};
    pump();
    touched_ = Clock::now();
    StreamBatch batch;
    auto it = window_.begin();
    while (it != window_.end() && it->cursor <= position) ++it;
    for (; it != window_.end() && batch.frames.size() < max; ++it) {
      batch.frames.push_back(websocket ? it->ws : it->sse);
      position = it->cursor;
    }
    batch.more = it != window_.end();
    batch.closed = closed_ && !batch.more;
    return batch;
  }

  std::int64_t first_unread() {
    std::lock_guard lock(mutex_);
    return window_.empty() ? counter_ : window_.front().cursor - 1;
  }
  std::int64_t counter() {
    std::lock_guard lock(mutex_);
    return counter_;
  }
  bool idle_since(Clock::time_point t) {
    std::lock_guard lock(mutex_);
    return touched_ < t;
  }

  /// Subscribers' wake functions: told when our stream has something new.
  struct Wakes {
    std::mutex mutex;
    std::map<std::uint64_t, std::function<void()>> wakes;
    std::uint64_t next = 0;
    void wake_all() {
      std::vector<std::function<void()>> copy;
      {
        std::lock_guard lock(mutex);
        for (auto& [id, w] : wakes) copy.push_back(w);
      }
      for (auto& w : copy) w();
    }
  };
  std::shared_ptr<Wakes> wakes() const { return wakes_; }

 private:
  RunFactsSource facts() {
    return [this] { return facts_of(engine_, run_id_); };
  }

  void add(std::vector<json::object> events) {
    for (auto& event : events) {
      const std::int64_t cursor = ++counter_;
      // A new session starts the window over: what a late subscriber needs is this session.
      if (event.at("type") == "run_started") window_.clear();
      const std::string bare = json::serialize(event);
      std::string sse = "{\"runId\":";
      events::append_json_string(sse, run_id_);
      sse += ",\"cursor\":" + std::to_string(cursor) + ",\"event\":" + bare + "}";
      window_.push_back(Entry{cursor, events::make_frame(sse, cursor), events::make_frame(bare, cursor)});
      if (window_.size() > CompatTimelines::window_events) window_.pop_front();
    }
  }

  /// [under mutex_] Translates what our stream has now.
  void pump() {
    if (!native_ || closed_) return;
    for (;;) {
      auto batch = poll_stream(*native_, stream_batch_frames, false);
      for (const auto& frame : batch.frames) {
        boost::system::error_code ec;
        auto value = json::parse(frame->json(), ec);
        if (ec || !value.is_object()) continue;
        add(translation_.translate(value.as_object(), facts()));
      }
      if (batch.closed) closed_ = true;
      if (!batch.more || batch.closed) break;
    }
  }

  engine::Engine& engine_;
  const std::string run_id_;
  std::mutex mutex_;
  TimelineTranslation translation_;
  std::int64_t counter_;
  std::deque<Entry> window_;
  std::shared_ptr<EventStream> native_;
  bool closed_ = false;
  std::optional<core::Error> failed_;  // load() failed: every reader is told
  Clock::time_point touched_ = Clock::now();
  std::shared_ptr<Wakes> wakes_ = std::make_shared<Wakes>();
};

namespace {

class CompatTimelineStream final : public EventStream {
 public:
  CompatTimelineStream(std::shared_ptr<RunTranslator> translator, bool websocket)
      : translator_(std::move(translator)), websocket_(websocket), position_(translator_->first_unread()) {}
  ~CompatTimelineStream() override {
    if (!started_) return;
    auto wakes = translator_->wakes();
    std::lock_guard lock(wakes->mutex);
    wakes->wakes.erase(wake_id_);
  }
  const char* channel() const override { return "timeline"; }
  void start(std::function<void()> wake) override {
    auto wakes = translator_->wakes();
    {
      std::lock_guard lock(wakes->mutex);
      wake_id_ = wakes->next++;
      wakes->wakes.emplace(wake_id_, wake);
      started_ = true;
    }
    // The session so far is ready to read now: a transport that waits for a wake first
    // (a WebSocket subscription) would otherwise see nothing of a run that has ended.
    wake();
  }
  StreamBatch poll(std::size_t max_frames, bool) override { return translator_->read(position_, max_frames, websocket_); }

 private:
  std::shared_ptr<RunTranslator> translator_;
  bool websocket_;
  std::int64_t position_;
  std::uint64_t wake_id_ = 0;
  bool started_ = false;
};

}  // namespace

CompatTimelines::~CompatTimelines() = default;

core::Result<std::shared_ptr<RunTranslator>> CompatTimelines::translator(const std::string& run_id) {
  std::shared_ptr<RunTranslator> made;
  std::unique_lock<std::mutex> loading;
  {
    std::lock_guard lock(mutex_);
    // Drop the translators nobody has read for a while (and nobody subscribes to; one
    // being loaded is held by its loader, so never dropped meanwhile).
    const auto stale = Clock::now() - idle_lifetime;
    for (auto it = translators_.begin(); it != translators_.end();) {
      if (it->second.use_count() == 1 && it->second->idle_since(stale)) {
        counters_[it->first] = it->second->counter();
        it = translators_.erase(it);
      } else {
        ++it;
      }
    }
    if (auto it = translators_.find(run_id); it != translators_.end()) return it->second;
    // A translator made again starts past the old counter plus one: a client that held
    // the old numbering sees a gap and reloads, never a cursor reused for another event.
    std::int64_t counter = 0;
    if (auto it = counters_.find(run_id); it != counters_.end()) counter = it->second + 1;
    made = std::make_shared<RunTranslator>(engine_, run_id, counter);
    loading = made->hold();
    translators_.emplace(run_id, made);
  }
  // Reading a long timeline takes a while: other runs' clients do not wait for it.
  if (auto loaded = made->load(); !loaded) {
    loading.unlock();
    std::lock_guard lock(mutex_);
    if (auto it = translators_.find(run_id); it != translators_.end() && it->second == made) translators_.erase(it);
    return loaded.failure();
  }
  return made;
}

core::Result<json::object> CompatTimelines::history(const std::string& run_id) {
  auto t = translator(run_id);
  if (!t) return t.failure();
  return (*t)->history();
}

core::Result<std::shared_ptr<EventStream>> CompatTimelines::subscribe(const std::string& run_id, bool websocket) {
  auto t = translator(run_id);
  if (!t) return t.failure();
  return std::shared_ptr<EventStream>(std::make_shared<CompatTimelineStream>(std::move(*t), websocket));
}

}  // namespace agentry::api::compat
