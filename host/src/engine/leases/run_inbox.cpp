#include "engine/leases/run_inbox.hpp"

#include "core/log.hpp"
#include "store/run_request_repository.hpp"
#include "store/store.hpp"

#include <vector>

namespace agentry::engine {

RunInbox::RunInbox(store::Store& db, core::ThreadPool& pool, std::string owner, Handler handler)
    : db_(db), pool_(pool), owner_(std::move(owner)), handler_(std::move(handler)) {}

RunInbox::~RunInbox() { stop(); }

void RunInbox::start(std::chrono::milliseconds poll_every) {
  std::lock_guard lock(mutex_);
  if (poll_) return;
  {
    std::lock_guard serving(gate_->serving);
    gate_->open = true;
  }
  poll_ = std::make_unique<core::RepeatingTask>(pool_, poll_every, [this] { serve(); });
}

void RunInbox::stop() {
  std::unique_ptr<core::RepeatingTask> poll;
  {
    std::lock_guard lock(mutex_);
    poll = std::move(poll_);
  }
  if (poll) poll->stop();
  std::lock_guard serving(gate_->serving);  // waits for a look under way
  gate_->open = false;
}

void RunInbox::wake() {
  if (gate_->wake_pending.exchange(true)) return;
  pool_.post([this, gate = gate_] {
    gate->wake_pending = false;
    std::lock_guard serving(gate->serving);
    if (gate->open) serve_locked();
  });
}

int RunInbox::serve() {
  std::lock_guard serving(gate_->serving);
  return gate_->open ? serve_locked() : 0;
}

int RunInbox::serve_locked() {
  auto requests = db_.read([&](store::Transaction& c) -> core::Result<std::vector<store::RunRequest>> {
    return c.run_requests().for_owner(owner_, 100);
  });
  if (!requests) {
    core::log_warn("cannot read the requests for this daemon's runs", {{"error", requests.error().message}});
    return 0;
  }
  if (requests->empty()) return 0;
  for (const auto& request : *requests) handler_(request);
  auto removed = db_.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    for (const auto& request : *requests) c.run_requests().remove(request.id);
    return true;
  });
  if (!removed) {
    core::log_warn("cannot remove the requests carried out", {{"error", removed.error().message}});
    return 0;
  }
  return static_cast<int>(requests->size());
}

}  // namespace agentry::engine
