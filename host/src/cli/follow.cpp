#include "cli/follow.hpp"

#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/render.hpp"
#include "cli/timeline_render.hpp"

#include <boost/json/serialize.hpp>

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <ostream>

namespace agentry::cli {
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int max_resubscribes = 20;
constexpr std::int64_t history_page = 1000;

/// Subscription events handed from transport threads to the following thread.
class Inbox {
 public:
  void push(StreamEvent e) {
    {
      std::lock_guard lock(mutex_);
      events_.push_back(std::move(e));
    }
    cv_.notify_one();
  }
  void close(std::string which, std::string reason) {
    {
      std::lock_guard lock(mutex_);
      closed_.emplace_back(std::move(which), std::move(reason));
    }
    cv_.notify_one();
  }
  /// Waits up to `timeout` for something; takes everything there is.
  void take(std::chrono::milliseconds timeout, std::deque<StreamEvent>& events,
            std::vector<std::pair<std::string, std::string>>& closed) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, timeout, [&] { return !events_.empty() || !closed_.empty(); });
    events.swap(events_);
    closed.swap(closed_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<StreamEvent> events_;
  std::vector<std::pair<std::string, std::string>> closed_;
};

class Follower {
 public:
  Follower(Client& client, std::string run_id, const FollowOptions& options, std::ostream& out, std::ostream& err)
      : client_(client), run_id_(std::move(run_id)), options_(options), out_(out), err_(err),
        cursor_(options.after) {}

  ~Follower() {
    for (const auto& id : {timeline_sub_, detail_sub_})
      if (!id.empty()) client_.unsubscribe(id);
  }

  FollowOutcome run() {
    if (auto ok = subscribe("timeline"); !ok) return failed(ok.error());
    if (auto ok = subscribe("detail"); !ok) return failed(ok.error());
    auto started = Clock::now();
    last_output_ = started;
    auto last_poll = started;
    int resubscribes = 0;
    while (!done_) {
      if (options_.abort_on_interrupt && InterruptGuard::interrupted() && !outcome_.interrupted) {
        abort_run();
        break;
      }
      if (!options_.abort_on_interrupt && InterruptGuard::interrupted()) {
        outcome_.interrupted = true;
        break;
      }
      std::deque<StreamEvent> events;
      std::vector<std::pair<std::string, std::string>> closed;
      inbox_.take(std::chrono::milliseconds(200), events, closed);
      for (const auto& e : events) handle(e);
      for (const auto& [which, reason] : closed) {
        if (done_) break;
        (which == "timeline" ? timeline_sub_ : detail_sub_).clear();
        if (reason.rfind("lost the connection", 0) == 0 || ++resubscribes > max_resubscribes)
          return failed(core::make_error(core::ErrorCode::internal,
                                         reason + "; the run goes on: follow it with `agentry logs -f " + run_id_ + "`"));
        if (auto ok = subscribe(which); !ok) return failed(ok.error());
      }
      auto now = Clock::now();
      if (!done_ && now - last_poll >= options_.fallback_poll) {
        last_poll = now;
        auto got = client_.call("runs.get", json::object{{"runId", run_id_}});
        if (!got) return failed(got.error());
        if (auto* run = got->as_object().if_contains("run"); run && run->is_object()) on_detail(run->as_object());
      }
      if (!done_ && !options_.quiet && !options_.json_lines && now - last_output_ >= options_.progress_every) {
        err_ << "agentry: run " << run_id_ << " still " << (status_.empty() ? "running" : status_) << " after "
             << duration_text(std::chrono::duration_cast<std::chrono::milliseconds>(now - started).count()) << "\n";
        err_.flush();
        last_output_ = now;
      }
    }
    for (auto* id : {&timeline_sub_, &detail_sub_})
      if (!id->empty()) {
        client_.unsubscribe(*id);
        id->clear();
      }
    if (auto ok = drain_history(); !ok) return failed(ok.error());
    auto final_run = client_.call("runs.get", json::object{{"runId", run_id_}});
    if (!final_run) return failed(final_run.error());
    const auto& run = final_run->as_object().at("run");
    outcome_.status = text_at(run, "status");
    outcome_.reason = text_at(run, "statusReason");
    if (!options_.quiet && !options_.json_lines && !saw_run_finished_ &&
        exit_code::is_terminal_status(outcome_.status)) {
      out_ << "══ run " << outcome_.status << (outcome_.reason.empty() ? "" : ": " + outcome_.reason) << " ══\n";
      out_.flush();
    }
    return outcome_;
  }

 private:
  core::Result<void> subscribe(const std::string& which) {
    SubscribeRequest request;
    request.run_id = run_id_;
    std::string* slot = nullptr;
    if (which == "timeline") {
      request.channel = "run_timeline";
      request.after = cursor_;
      slot = &timeline_sub_;
    } else {
      request.channel = "run_detail";
      slot = &detail_sub_;
    }
    StreamHandlers handlers{[this](const StreamEvent& e) { inbox_.push(e); },
                            [this, which](const std::string& reason) { inbox_.close(which, reason); }};
    auto id = client_.subscribe(request, std::move(handlers));
    if (!id) return id.failure();
    *slot = *id;
    return core::ok();
  }

  void handle(const StreamEvent& e) {
    if (e.method == "run.timeline") {
      auto* cursor = e.params.if_contains("cursor");
      auto* event = e.params.if_contains("event");
      if (!cursor || !cursor->is_int64() || !event || !event->is_object()) return;  // ephemeral
      print_event(cursor->as_int64(), event->as_object());
    } else if (e.method == "run.detail") {
      if (text_at(json::value(e.params), "type") == "run_removed") {
        done_ = true;
        outcome_.error = core::make_error(core::ErrorCode::not_found, "run " + run_id_ + " was deleted");
        return;
      }
      if (auto* run = e.params.if_contains("run"); run && run->is_object()) on_detail(run->as_object());
    }
  }

  void print_event(std::int64_t cursor, const json::object& event) {
    if (cursor <= cursor_) return;  // replayed twice around a resubscription
    cursor_ = cursor;
    if (text_at(json::value(event), "kind") == "run.finished") saw_run_finished_ = true;
    if (options_.quiet) return;
    if (options_.json_lines) {
      out_ << json::serialize(event) << "\n";
    } else {
      auto text = render_timeline_event(event);
      if (text.empty()) return;
      out_ << text;
    }
    out_.flush();
    last_output_ = Clock::now();
  }

  void on_detail(const json::object& run) {
    const json::value v(run);
    status_ = text_at(v, "status");
    if (auto* tasks = run.if_contains("tasks"); tasks && tasks->is_array()) {
      for (const auto& t : tasks->as_array()) {
        std::string id = text_at(t, "id");
        std::string status = text_at(t, "status");
        auto it = tasks_.find(id);
        if (have_tasks_ && (it == tasks_.end() || it->second != status) && !options_.quiet && !options_.json_lines) {
          std::string at = clock_time(text_at(t, "updatedAt"));
          out_ << (at.empty() ? std::string(8, ' ') : at) << " · task " << id << ": "
               << (it == tasks_.end() ? "added, " : it->second + " → ") << status << "\n";
          out_.flush();
          last_output_ = Clock::now();
        }
        tasks_[id] = status;
      }
      have_tasks_ = true;
    }
    if (exit_code::is_terminal_status(status_)) done_ = true;
  }

  void abort_run() {
    outcome_.interrupted = true;
    if (!options_.quiet) {
      err_ << "\nagentry: interrupted; aborting run " << run_id_ << " (Ctrl-C again to quit without waiting)\n";
      err_.flush();
    }
    auto aborted = client_.call("runs.abort", json::object{{"runId", run_id_}, {"reason", "interrupted from the agentry CLI (Ctrl-C)"}});
    if (!aborted && aborted.error().code != core::ErrorCode::conflict) {
      err_ << "agentry: could not abort run " << run_id_ << ": " << aborted.error().message << "\n";
      err_.flush();
    }
    done_ = true;
  }

  core::Result<void> drain_history() {
    for (;;) {
      auto page = client_.call("runs.timelineHistory",
                               json::object{{"runId", run_id_}, {"after", cursor_}, {"limit", history_page}});
      if (!page) return page.failure();
      const auto* events = page->as_object().if_contains("events");
      if (!events || !events->is_array() || events->as_array().empty()) return core::ok();
      for (const auto& e : events->as_array())
        if (auto* c = e.as_object().if_contains("cursor"); c && c->is_int64()) print_event(c->as_int64(), e.as_object());
    }
  }

  FollowOutcome failed(core::Error error) {
    outcome_.error = std::move(error);
    return outcome_;
  }

  Client& client_;
  std::string run_id_;
  FollowOptions options_;
  std::ostream& out_;
  std::ostream& err_;
  Inbox inbox_;
  std::string timeline_sub_;
  std::string detail_sub_;
  std::int64_t cursor_;
  std::string status_;
  std::map<std::string, std::string> tasks_;
  bool have_tasks_ = false;
  bool saw_run_finished_ = false;
  bool done_ = false;
  Clock::time_point last_output_;
  FollowOutcome outcome_;
};

}  // namespace

FollowOutcome follow_run(Client& client, const std::string& run_id, const FollowOptions& options, std::ostream& out,
                         std::ostream& err) {
  Follower follower(client, run_id, options, out, err);
  return follower.run();
}

core::Result<std::int64_t> last_timeline_cursor(Client& client, const std::string& run_id) {
  std::int64_t after = 0;
  for (;;) {
    auto page = client.call("runs.timelineHistory",
                            json::object{{"runId", run_id}, {"after", after}, {"limit", 5000}});
    if (!page) return page.failure();
    auto* last = page->as_object().if_contains("lastCursor");
    std::int64_t next = last && last->is_int64() ? last->as_int64() : after;
    if (next == after) return after;
    after = next;
  }
}

}  // namespace agentry::cli
