#pragma once
// Tells live subscribers that something committed. Durable events (timeline, audit)
// are not carried here: a notified subscriber reads what is new from the store, after
// its cursor. That gives replay-then-live with no gap and no duplicate by construction,
// and a slow subscriber costs no memory: it simply reads further behind. Ephemeral
// timeline events (token deltas), which are never stored, are the one payload the bus
// carries; subscribers keep them in a bounded queue.
//
// Listeners run synchronously on the notifying thread and must not block.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentry::events {

enum class Channel { summary, detail, timeline, audit };

struct Notification {
  Channel channel = Channel::summary;
  std::string run_id;
  /// For Channel::timeline only: an ephemeral event envelope (JSON text), else null.
  std::shared_ptr<const std::string> ephemeral;
};

class EventBus {
 public:
  using Listener = std::function<void(const Notification&)>;

  /// Unsubscribes on destruction.
  class Subscription {
   public:
    Subscription() = default;
    Subscription(EventBus* bus, std::uint64_t id) : bus_(bus), id_(id) {}
    Subscription(Subscription&& other) noexcept : bus_(other.bus_), id_(other.id_) { other.bus_ = nullptr; }
    Subscription& operator=(Subscription&& other) noexcept;
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;
    ~Subscription();

   private:
    EventBus* bus_ = nullptr;
    std::uint64_t id_ = 0;
  };

  /// `run_id` empty: every run.
  Subscription subscribe(Channel channel, std::string run_id, Listener listener);

  void notify(Channel channel, const std::string& run_id);
  /// The run's summary, detail and audit changed (any committed mutation).
  void run_changed(const std::string& run_id);
  void publish_ephemeral(const std::string& run_id, std::string envelope_json);

  std::size_t subscriber_count() const;

 private:
  struct Entry {
    std::uint64_t id;
    Channel channel;
    std::string run_id;
    std::shared_ptr<Listener> listener;
  };
  void unsubscribe(std::uint64_t id);
  void deliver(const Notification& n);

  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  std::uint64_t next_id_ = 1;
};

}  // namespace agentry::events
