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
  if (topic == "requests") {
    engine_.wake_inbox();
  } else if (topic == "changed") {
    look_soon(std::chrono::milliseconds(0));
    look_soon(std::chrono::milliseconds(60));
  }
}

void StoreWakeups::look_soon(std::chrono::milliseconds delay) {
  auto look = [gate = gate_, engine = &engine_](bool trailing) {
    if (!trailing) gate->look_pending = false;
    std::lock_guard lock(gate->mutex);
    if (!gate->open) return;
    if (auto noticed = engine->notice_foreign_changes(); !noticed)
      core::log_warn("looking for changes other members made failed", {{"error", noticed.error().message}});
  };
  if (delay.count() > 0) {
    (void)pool_.post_after(delay, [look] { look(true); });
    return;
  }
  if (gate_->look_pending.exchange(true)) return;  // one look already waits its turn
  pool_.post([look] { look(false); });
}

}  // namespace agentry::cli
