// Engine: claiming the starts that wait for a member (store/run_start_repository.hpp), and
// when to look for them (start_claims.hpp).

#include "engine/placement/start_claims.hpp"

#include "core/log.hpp"
#include "engine/engine.hpp"
#include "store/run_repository.hpp"
#include "store/run_start_repository.hpp"
#include "store/store.hpp"

namespace agentry::engine {

StartClaims::StartClaims(core::ThreadPool& pool, std::function<void()> look) : pool_(pool) {
  gate_->look = std::move(look);
}

StartClaims::~StartClaims() { stop(); }

void StartClaims::start() {
  std::lock_guard lock(gate_->looking);
  gate_->open = true;
}

void StartClaims::wake() {
  if (!gate_->open) return;  // never waits for a look under way: live runs wake it as they end
  if (gate_->due.exchange(true)) return;  // the look already due covers this one
  pool_.post([gate = gate_] {
    std::lock_guard lock(gate->looking);
    // Cleared under the lock: a wake-up during this look makes one more.
    gate->due = false;
    if (gate->open) gate->look();
  });
}

void StartClaims::stop() {
  std::lock_guard lock(gate_->looking);  // a look under way finishes first
  gate_->open = false;
}

core::Result<int> Engine::claim_waiting_starts() {
  // A read first: most starts wait on what this process lacks, and their reason stands.
  // Only those that fit here, whose reason moved on, or whose run went another way are
  // worth a write.
  auto worth = db_.read([&](store::Transaction& c)
                                                            -> core::Result<std::vector<store::WaitingStart>> {
    std::vector<store::WaitingStart> out;
    auto waiting = c.run_starts().oldest(200);
    if (waiting.empty()) return out;
    const auto members = placement_.live_members(c);
    for (auto& w : waiting) {
      auto run = c.runs().get(w.run_id);
      if (!run) continue;
      const bool fits = backends_.has(run->frozen.backend) && !placement_.why_not_here(c, *run);
      if (run->status != core::RunStatus::ready || run->archived || fits ||
          placement_.waiting_reason(members, *run) != run->status_reason)
        out.push_back(std::move(w));
    }
    return out;
  });
  if (!worth) return worth.failure();
  int started = 0;
  for (const auto& w : *worth) {
    auto run = start_session(w.run_id, ResumeRequest{w.message}, Actor{w.actor}, w.automatic, &w);
    if (run && run->status == core::RunStatus::running) {
      ++started;
      core::log_info("claimed a run waiting for a member", {{"runId", w.run_id}, {"trigger", w.trigger}});
    } else if (!run && run.error().code != core::ErrorCode::conflict) {
      core::log_warn("claiming a waiting start failed", {{"runId", w.run_id}, {"error", run.error().message}});
    }
  }
  return started;
}

}  // namespace agentry::engine
