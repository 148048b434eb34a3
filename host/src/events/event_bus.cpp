#include "events/event_bus.hpp"

#include "events/stream_metrics.hpp"

#include <algorithm>

namespace agentry::events {
namespace {

const char* channel_name(Channel channel) {
  switch (channel) {
    case Channel::summary: return "summary";
    case Channel::detail: return "detail";
    case Channel::audit: return "audit";
    case Channel::browser: return "browser";
  }
  return "other";
}

}  // namespace


EventBus::Subscription& EventBus::Subscription::operator=(Subscription&& other) noexcept {
  if (this != &other) {
    if (bus_) bus_->unsubscribe(id_);
    bus_ = other.bus_;
    id_ = other.id_;
    other.bus_ = nullptr;
  }
  return *this;
}

EventBus::Subscription::~Subscription() {
  if (bus_) bus_->unsubscribe(id_);
}

EventBus::Subscription EventBus::subscribe(Channel channel, std::string run_id, Listener listener) {
  std::lock_guard lock(mutex_);
  auto id = next_id_++;
  entries_.push_back({id, channel, std::move(run_id), std::make_shared<Listener>(std::move(listener))});
  stream_subscribers(channel_name(channel)).add(1);
  return Subscription(this, id);
}

void EventBus::unsubscribe(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  auto gone = std::remove_if(entries_.begin(), entries_.end(), [id](const Entry& e) { return e.id == id; });
  for (auto it = gone; it != entries_.end(); ++it) stream_subscribers(channel_name(it->channel)).add(-1);
  entries_.erase(gone, entries_.end());
}

void EventBus::deliver(const Notification& n) {
  // Snapshot under the lock, call outside it: a listener may unsubscribe or subscribe.
  std::vector<std::shared_ptr<Listener>> targets;
  {
    std::lock_guard lock(mutex_);
    for (const auto& e : entries_)
      if (e.channel == n.channel && (e.run_id.empty() || e.run_id == n.run_id)) targets.push_back(e.listener);
  }
  for (const auto& listener : targets) (*listener)(n);
}

void EventBus::notify(Channel channel, const std::string& run_id) { deliver(Notification{channel, run_id}); }

void EventBus::run_changed(const std::string& run_id) {
  notify(Channel::summary, run_id);
  notify(Channel::detail, run_id);
  notify(Channel::audit, run_id);
}

std::size_t EventBus::subscriber_count() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace agentry::events
