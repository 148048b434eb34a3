#include "engine/live/live_run.hpp"
#include "engine/hooks/after_exit.hpp"
#include "engine/workspace_baseline/workspace_baseline.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "engine/mutation_support.hpp"
#include "engine/live/start_config.hpp"
#include "events/event_bus.hpp"
#include "plugin_host/plugin_registry.hpp"
#include "store/approval_repository.hpp"
#include "store/store.hpp"
#include "store/run_repository.hpp"
#include "store/session_repository.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace agentry::engine {
namespace json = boost::json;
namespace {

// Events per write job: a whole commit's worth at full speed, within the writer's row limits.
constexpr std::size_t max_batch = 4096;

/// What a queued event holds, roughly: its texts and the object around them.
std::size_t queued_cost(const plugin_host::BackendEvent& event) {
  return sizeof(plugin_host::BackendEvent) + event.kind.size() + 2 * event.payload_json.size();
}

}  // namespace

LiveRun::LiveRun(LiveRunServices services, LaunchSpec spec, OnFinished on_finished)
    : services_(services),
      spec_(std::move(spec)),
      strand_(services.pool),
      on_finished_(std::move(on_finished)) {
  attempt_.run_id = spec_.run.id;
  attempt_.controller_id = spec_.controller_id;
  attempt_.lease_epoch = spec_.lease_epoch;
  attempt_.attempt_number = spec_.attempt_number;
  attempt_.session_index = spec_.session_index;
  attempt_.adopting = spec_.adopt;
  attempt_.previous_controller_id = spec_.previous_controller_id;
  attempt_.task_prompt = services_.task_prompt;
  attempt_.child_limits = services_.child_limits;
  attempt_.defer_decision = after_attempt_may_reinvoke(spec_.run);
}

LiveRun::~LiveRun() {
  timeout_timer_.cancel();
  grace_timer_.cancel();
  release_queued(queue_bytes_);
}

void LiveRun::release_queued(std::size_t bytes) {
  if (bytes == 0) return;
  if (services_.queued_events) services_.queued_events->give_back(bytes);
  queue_bytes_ -= bytes;
}

void LiveRun::launch() {
  strand_.post([self = shared_from_this()] { self->prepare(); });
}

void LiveRun::off_strand(std::function<void()> work, std::function<void(LiveRun&)> then) {
  // `self` keeps `this` alive for both parts; hook_services() and the services are
  // all the work touches of it.
  auto self = shared_from_this();
  strand_.run_blocking(
      services_.blocking, [self, work = std::move(work)] { work(); }, [self, then = std::move(then)] { then(*self); });
}

// On the strand. A fresh run's first session: prepare hooks first (a git-worktree hook
// moves the run's cwd into its worktree), then the workspace baseline.
void LiveRun::prepare() {
  if (spec_.session_index != 0 || spec_.adopt) {
    create_instance();
    return;
  }
  if (!has_hooks(spec_.run, core::HookPhase::prepare)) {
    record_baseline();
    return;
  }
  run_phase_hooks(HookInvocation{core::HookPhase::prepare, {}, {}, std::nullopt, {}, std::nullopt, std::nullopt},
                  std::nullopt,
                  [](LiveRun& self, const HookPhaseResult& prepared) {
                    if (prepared.stop) self.end_for_stopping_hook(prepared);
                    else self.record_baseline();
                  });
}

// Before the agent touches anything: what the tree looked like (workspace_hooks.hpp),
// in the cwd the prepare hooks left.
void LiveRun::record_baseline() {
  off_strand([run = spec_.run] { record_workspace_baseline(run); }, [](LiveRun& self) { self.create_instance(); });
}

void LiveRun::create_instance() {
  auto session = services_.plugins.create(spec_.run.frozen.backend, *this);
  if (!session) {
    end_by_host("error", session.error().message);
    return;
  }
  backend_ = std::move(*session);
  start_attempt(spec_.prompt);
}

// On the strand, with attempt_ naming the attempt the store has just opened.
void LiveRun::start_attempt(const std::string& original_prompt) {
  if (attempt_.adopting || !has_hooks(spec_.run, core::HookPhase::before_attempt)) {
    begin_attempt(original_prompt);
    return;
  }
  const bool first_attempt = attempt_.attempt_number == spec_.attempt_number;
  HookInvocation invocation{core::HookPhase::before_attempt,
                            {{"attempt", first_attempt ? "first" : "retry"},
                             {"session", spec_.session_index == 0 ? "first" : "resume"}},
                            {{"attempt", json::object{{"number", attempt_.attempt_number},
                                                      {"sessionIndex", spec_.session_index},
                                                      {"firstInSession", first_attempt}}}},
                            std::nullopt,
                            original_prompt,
                            spec_.session_index,
                            attempt_.attempt_number};
  // The backend hears of the attempt only once the hooks let it through: until then no
  // event of it can exist, and the strand runs nothing else of this run.
  run_phase_hooks(std::move(invocation), first_attempt ? std::optional<int>(spec_.session_index) : std::nullopt,
                  [original_prompt](LiveRun& self, const HookPhaseResult& result) {
                    if (result.stop) self.end_for_stopping_hook(result);
                    else self.begin_attempt(result.prompt.value_or(original_prompt));
                  });
}

void LiveRun::begin_attempt(const std::string& prompt) {
  const auto& environment = spec_.run.frozen.environment;
  if (environment && environment->kind == "container") place_in_container(prompt);
  else launch_attempt(prompt);
}

void LiveRun::launch_attempt(const std::string& prompt) {
  const auto& run = spec_.run;
  plugin_host::StartRequest request;
  request.run_id = run.id;
  request.session_id = run.id + "/s" + std::to_string(spec_.session_index);
  request.session_index = static_cast<std::uint32_t>(spec_.session_index);
  request.attempt_number = static_cast<std::uint32_t>(attempt_.attempt_number);
  request.workspace_path = run.cwd;
  json::object input{{"prompt", prompt}, {"brief", run.frozen.brief}, {"message", run.frozen.message}};
  if (attempt_.adopting) input["checkpoint"] = spec_.adopt_checkpoint;
  request.input_json = json::serialize(input);
  auto config = backend_start_config(run, container_exec_ ? &*container_exec_ : nullptr, spec_.daemon_socket);
  if (!config) {
    // An environment that cannot be applied ends the run: never an agent on the host.
    end_by_host("error", config.error().message);
    return;
  }
  request.config_json = json::serialize(*config);
  request.resume_token = spec_.run.backend_session_id;
  request.env = spec_.env;
  if (attempt_.adopting) {
    if (auto adopted = backend_->adopt(request); !adopted) {
      // CONFLICT: not this run (a Codex stdio run: its app-server died with the old
      // daemon), which ends as any orphaned run does. Anything else is the backend's error.
      if (adopted.error().code == core::ErrorCode::conflict)
        end_by_host("error",
                    "the process driving this run (" + spec_.previous_controller_id +
                        ") is gone; agentry restarted while the run was active",
                    "controller_gone");
      else
        end_by_host("error", "backend '" + run.frozen.backend +
                                 "' could not take over the run after the restart: " + adopted.error().message);
      return;
    }
  } else if (auto started = backend_->start(request); !started) {
    end_by_host("error", "backend '" + run.frozen.backend + "' refused to start: " + started.error().message);
    return;
  }
  // An interrupt that came before the instance existed (a shutdown racing the launch)
  // still applies; its grace timer is already running.
  if (interrupting_)
    if (auto ok = backend_->interrupt(interrupt_reason_); !ok)
      core::log_warn("backend interrupt failed", {{"runId", run_id()}, {"error", ok.error().message}});
  // timeoutSec bounds each attempt: a retry gets a fresh allowance.
  if (run.frozen.timeout_sec > 0) {
    const int seconds = run.frozen.timeout_sec;
    const int number = attempt_.attempt_number;
    timeout_timer_ = strand_.post_after(std::chrono::seconds(seconds), [self = shared_from_this(), seconds, number] {
      if (self->attempt_.attempt_number != number) return;  // that attempt already ended
      self->attempt_.timeout_message = "timed out after " + std::to_string(seconds) + " s";
      self->interrupt(*self->attempt_.timeout_message, StopCause::timeout);
    });
  }
}

void LiveRun::interrupt(const std::string& reason, StopCause cause) {
  // A hook of this run may be running now (a blocking step its strand waits for): it
  // must not make the abort or the shutdown wait for its timeout. A timeout only bounds
  // an attempt, which hooks are not.
  if (cause == StopCause::user_abort) {
    hook_cancel_by_user_ = true;
    hook_cancel_.cancel(reason);
  } else if (cause == StopCause::shutdown || cause == StopCause::daemon_exit) {
    hook_cancel_.cancel(reason);
  }
  strand_.post([self = shared_from_this(), reason, cause] {
    if (cause == StopCause::user_abort) self->attempt_.abort_requested = true;
    if (cause == StopCause::shutdown || cause == StopCause::daemon_exit) self->attempt_.shutdown_requested = true;
    {
      std::lock_guard lock(self->mutex_);
      if (self->finished_ || self->interrupting_) return;
      self->interrupting_ = true;
    }
    self->interrupt_reason_ = reason;
    if (cause == StopCause::daemon_exit && self->try_detach(reason)) return;
    if (self->backend_) {
      if (auto ok = self->backend_->interrupt(reason); !ok)
        core::log_warn("backend interrupt failed", {{"runId", self->run_id()}, {"error", ok.error().message}});
    }
    self->arm_interrupt_grace();
  });
}

void LiveRun::fence(const std::string& why) {
  if (fenced_.exchange(true)) return;
  hook_cancel_.cancel(why);
  strand_.post([self = shared_from_this(), why] {
    {
      std::lock_guard lock(self->mutex_);
      if (self->finished_) return;
    }
    core::log_error("this daemon no longer holds the run's lease; stopping its agent, recording nothing more",
                    {{"runId", self->run_id()}, {"reason", why}});
    if (self->backend_)
      if (auto ok = self->backend_->interrupt(why); !ok)
        core::log_warn("backend interrupt failed", {{"runId", self->run_id()}, {"error", ok.error().message}});
    self->mark_finished(std::nullopt);  // destroys the instance: its agent goes with it
  });
}

bool LiveRun::try_detach(const std::string& reason) {
  if (!backend_) return false;
  if (auto detached = backend_->detach(reason); !detached) return false;
  attempt_.detach_requested = true;
  detached_ = true;
  core::log_info("detached from a run its agent goes on with",
                 {{"runId", run_id()}, {"backend", spec_.run.frozen.backend}});
  arm_interrupt_grace();
  return true;
}

// The backend has interrupt_grace to end the attempt (plugin obligation 8), or the host
// ends it.
void LiveRun::arm_interrupt_grace() {
  grace_timer_ = strand_.post_after(services_.interrupt_grace, [self = shared_from_this()] {
    {
      std::lock_guard lock(self->mutex_);
      if (self->finished_) return;
    }
    if (self->backend_) self->backend_->poison();
    const std::string grace = std::to_string(self->services_.interrupt_grace.count()) + " ms";
    if (self->attempt_.detach_requested) {
      core::log_error("backend did not let go of a detached attempt; ending it (policy 8)", {{"runId", self->run_id()}});
      self->end_by_host("detached", "the backend did not let go within " + grace + "; its agent may still be working");
      return;
    }
    core::log_error("backend ignored interrupt; ending the attempt (policy 8)", {{"runId", self->run_id()}});
    const bool stopped = self->attempt_.abort_requested || self->attempt_.shutdown_requested;
    self->end_by_host(stopped ? "interrupted" : "error",
                      "the backend did not stop within " + grace + " of being interrupted");
  });
}

bool LiveRun::wait_finished(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return finished_cv_.wait_for(lock, timeout, [this] { return handed_off_; });
}

bool LiveRun::offer(plugin_host::BackendEvent event) {
  // The live view never reaches the writer or the timeline: only the latest frame is
  // kept, and viewers skip to it (events/browser_frames.hpp).
  if (event.kind == "browser.frame") {
    if (auto problem = services_.bus.browser().publish(run_id(), event.payload()))
      core::log_warn("dropped a malformed browser frame: " + *problem, {{"runId", run_id()}});
    else
      services_.bus.notify(events::Channel::browser, run_id());
    return true;
  }
  bool schedule = false;
  {
    std::lock_guard lock(mutex_);
    if (finished_) return true;  // late events of a force-ended attempt are dropped
    if (queue_.size() >= queue_limit) return false;
    // All runs together hold at most the daemon's budget; a run's first event always
    // fits, so no run waits for another to drain.
    const std::size_t cost = queued_cost(event);
    if (services_.queued_events) {
      if (queue_.empty()) services_.queued_events->take(cost);
      else if (!services_.queued_events->try_take(cost)) return false;
    }
    queue_bytes_ += cost;
    queue_.push_back(std::move(event));
    schedule = !pump_scheduled_;
    pump_scheduled_ = true;
  }
  if (schedule) strand_.post([self = shared_from_this()] { self->pump(); });
  return true;
}

void LiveRun::on_log(int severity, std::string message, int policy) {
  std::initializer_list<core::LogField> fields = {{"runId", run_id()},
                                                  {"backend", spec_.run.frozen.backend},
                                                  {"policy", std::to_string(policy)}};
  if (policy > 0 || severity >= 3) core::log_warn(policy > 0 ? "plugin broke its contract: " + message : message, fields);
  else core::log_info(message, fields);
}

void LiveRun::on_callback_requested() {
  strand_.post([self = shared_from_this()] {
    if (self->backend_) self->backend_->on_callback();
  });
}

void LiveRun::pump() {
  std::vector<plugin_host::BackendEvent> batch;
  core::ByteHold held;
  {
    std::lock_guard lock(mutex_);
    std::size_t taken = 0;
    while (!queue_.empty() && batch.size() < max_batch) {
      taken += queued_cost(queue_.front());
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    // The batch keeps its share of the budget until it is freed after its commit: events
    // waiting on the writer weigh as much as queued ones.
    queue_bytes_ -= taken;
    held = core::ByteHold(services_.queued_events, taken);
    if (queue_.empty()) pump_scheduled_ = false;
    else strand_.post([self = shared_from_this()] { self->pump(); });
  }
  if (!batch.empty()) write_batch_async(std::move(batch), std::move(held));
}

bool LiveRun::is_waiting_on(const std::string& approval_id) const {
  std::lock_guard lock(mutex_);
  return std::any_of(pending_approvals_.begin(), pending_approvals_.end(),
                     [&](const core::PendingApproval& a) { return a.approval_id == approval_id; });
}

core::Result<void> LiveRun::answer_approval(const std::string& approval_id, const std::string& decision) {
  core::PendingApproval answered;
  {
    std::lock_guard lock(mutex_);
    auto it = std::find_if(pending_approvals_.begin(), pending_approvals_.end(),
                           [&](const core::PendingApproval& a) { return a.approval_id == approval_id; });
    if (it == pending_approvals_.end())
      return core::fail(core::ErrorCode::not_found,
                        "run " + run_id() + " is not waiting on approval '" + approval_id + "'",
                        {{"approvalId", approval_id}});
    answered = std::move(*it);
    pending_approvals_.erase(it);
  }
  services_.bus.run_changed(run_id());
  // Backend calls happen on the strand only. Nobody waits for this one: a backend slow
  // to take the answer must not hold the caller (a request worker).
  const int attempt = attempt_.attempt_number;
  strand_.post([self = shared_from_this(), answered = std::move(answered), decision, attempt]() mutable {
    core::Result<void> sent = core::fail(core::ErrorCode::conflict, "the attempt has ended");
    if (self->backend_ && self->attempt_.attempt_number == attempt) {
      const std::string input_id = "approval-answer-" + std::to_string(++self->next_input_);
      const std::string payload =
          json::serialize(json::object{{"approvalId", answered.approval_id}, {"decision", decision}});
      sent = self->backend_->send_input(plugin_host::InputKind::approval, input_id, payload);
    }
    if (sent || self->fenced_) return;
    core::log_warn("backend did not take an approval answer",
                   {{"runId", self->run_id()}, {"approvalId", answered.approval_id}, {"error", sent.error().message}});
    const bool still_asking = self->backend_ && self->attempt_.attempt_number == attempt;
    const std::string run_id = self->run_id();
    auto audited = self->services_.db.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
      if (still_asking) c.approvals().insert(run_id, answered);
      detail::append_audit(c, run_id, "run.approval_answer_failed", Actor{"daemon"},
                           {{"approvalId", answered.approval_id},
                            {"decision", decision},
                            {"error", sent.error().message},
                            {"pendingAgain", still_asking}});
      return true;
    });
    if (!audited) core::log_error("cannot record a failed approval answer", {{"runId", run_id}});
    if (still_asking) {
      std::lock_guard lock(self->mutex_);
      self->pending_approvals_.push_back(std::move(answered));
    }
    self->services_.bus.run_changed(run_id);
  });
  return core::ok();
}

bool LiveRun::track_approvals(const std::vector<plugin_host::BackendEvent>& batch) {
  bool any = false;
  for (const auto& event : batch) {
    if (event.kind != "approval.request") continue;
    auto approval = pending_approval_of(event.payload());
    if (!approval) continue;
    std::lock_guard lock(mutex_);
    pending_approvals_.push_back(std::move(*approval));
    any = true;
  }
  return any;
}

void LiveRun::end_by_host(std::string outcome, std::string message, std::string adoption_reason) {
  // Whatever the backend still had queued is written first, then the forced end.
  std::vector<plugin_host::BackendEvent> rest;
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    rest.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
    queue_.clear();
    release_queued(queue_bytes_);
  }
  write_batch(std::move(rest), ForcedEnd{std::move(outcome), std::move(message), std::move(adoption_reason)});
}

void LiveRun::mark_finished(std::optional<NextSession> next) {
  timeout_timer_.cancel();
  grace_timer_.cancel();
  {
    std::lock_guard lock(mutex_);
    finished_ = true;
    queue_.clear();
    release_queued(queue_bytes_);
  }
  backend_.reset();  // destroy(): joins the plugin's threads (unless poisoned)
  if (!next) release_container();
  // The hand-off to a queued-message session comes first, so whoever waited for this
  // session finds its successor already registered.
  if (on_finished_) on_finished_(*this, std::move(next));
  {
    std::lock_guard lock(mutex_);
    handed_off_ = true;
  }
  finished_cv_.notify_all();
}

}  // namespace agentry::engine

