#include "cli/store_wakeups.hpp"

#include "core/log.hpp"
#include "engine/engine.hpp"
#include "store/store.hpp"

namespace agentry::cli {

StoreWakeups::StoreWakeups(store::Store& db, core::ThreadPool& pool, engine::Engine& engine)
    : db_(db), pool_(pool), engine_(engine) {
  db_.set_wakeup_listener([this](const std::string& topic) { on_topic(topic); });
}

StoreWakeups::~StoreWakeups() {
  db_.set_wakeup_listener(nullptr);  // joins the listener: on_topic is not called again
  std::lock_guard lock(gate_->mutex);  // a look under way finishes first
  gate_->open = false;
}

void StoreWakeups::on_topic(const std::string& topic) {
  if (topic == "requests") engine_.wake_inbox();
  else if (topic == "starts") engine_.wake_start_claims();
  else if (topic == "changed") schedule_look();
}

void StoreWakeups::schedule_look() {
  if (gate_->look_scheduled.exchange(true)) return;  // the look already due covers this one
  using namespace std::chrono;
  const auto now = steady_clock::now().time_since_epoch();
  const auto since = now - nanoseconds(gate_->last_look_ns.load());
  const auto wait = since >= min_look_gap ? milliseconds(0) : duration_cast<milliseconds>(min_look_gap - since);
  auto look = [gate = gate_, engine = &engine_] {
    // Cleared first: a wake-up during this look schedules the next one.
    gate->look_scheduled = false;
    gate->last_look_ns = steady_clock::now().time_since_epoch().count();
    std::lock_guard lock(gate->mutex);
    if (!gate->open) return;
    if (auto noticed = engine->notice_foreign_changes(); !noticed)
      core::log_warn("looking for changes other members made failed", {{"error", noticed.error().message}});
  };
  if (wait.count() == 0) pool_.post(std::move(look));
  else (void)pool_.post_after(wait, std::move(look));
}

}  // namespace agentry::cli
