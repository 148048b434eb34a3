#include "core/executor.hpp"

#include "core/blocking_pool.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>

namespace agentry::core {
namespace {

/// The strand whose task this thread is running, if any: run_blocking() may hold only
/// the strand it is called from.
thread_local const void* current_strand = nullptr;

}  // namespace

class TimerQueue {
 public:
  using Clock = std::chrono::steady_clock;
  using Key = std::pair<Clock::time_point, std::uint64_t>;

  TimerHandle add(const std::shared_ptr<TimerQueue>& self, std::chrono::milliseconds delay, Work task) {
    const auto due = Clock::now() + delay;
    std::uint64_t id = 0;
    bool earliest = false;
    {
      std::lock_guard lock(mutex_);
      id = ++next_id_;
      auto it = tasks_.emplace(Key{due, id}, std::move(task)).first;
      earliest = it == tasks_.begin();
    }
    if (earliest) wake_.notify_one();
    return TimerHandle(self, due, id);
  }

  void cancel(Clock::time_point due, std::uint64_t id) {
    std::map<Key, Work>::node_type node;
    {
      std::lock_guard lock(mutex_);
      node = tasks_.extract(Key{due, id});
    }
    // `node` (and whatever its task captured) is destroyed here, outside the lock.
  }

  /// Hands each due task to `post` until stop(); runs on the pool's timer thread.
  void run(const std::function<void(Work)>& post) {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      if (tasks_.empty()) {
        wake_.wait(lock);
        continue;
      }
      const auto due = tasks_.begin()->first.first;
      if (Clock::now() < due) {
        wake_.wait_until(lock, due);
        continue;
      }
      auto node = tasks_.extract(tasks_.begin());
      lock.unlock();
      post(std::move(node.mapped()));
      node = {};  // destroyed unlocked too
      lock.lock();
    }
  }

  /// Ends run(); tasks not yet due are dropped (outside the lock).
  void stop() {
    std::map<Key, Work> dropped;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      dropped.swap(tasks_);
    }
    wake_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  std::map<Key, Work> tasks_;
  std::uint64_t next_id_ = 0;
  bool stopping_ = false;
};

void TimerHandle::cancel() {
  if (auto queue = queue_.lock()) queue->cancel(due_, id_);
}

ThreadPool::ThreadPool(std::size_t threads) : timers_(std::make_shared<TimerQueue>()) {
  for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i) workers_.emplace_back([this] { work(); });
  timer_thread_ = std::thread([this] { time(); });
}

ThreadPool::~ThreadPool() {
  timers_->stop();
  timer_thread_.join();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::post(Work task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
}

TimerHandle ThreadPool::post_after(std::chrono::milliseconds delay, Work task) {
  return timers_->add(timers_, delay, std::move(task));
}

void ThreadPool::work() {
  for (;;) {
    Work task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void ThreadPool::time() {
  timers_->run([this](Work task) { post(std::move(task)); });
}

Strand::Strand(ThreadPool& pool) : state_(std::make_shared<State>(pool)) {}

void Strand::post(Work task) {
  bool start = false;
  {
    std::lock_guard lock(state_->mutex);
    state_->queue.push_back(std::move(task));
    start = !state_->running;
    state_->running = true;
  }
  if (start) state_->pool.post([state = state_] { drain(state); });
}

TimerHandle Strand::post_after(std::chrono::milliseconds delay, Work task) {
  return state_->pool.post_after(delay, [strand = *this, task = std::move(task)]() mutable { strand.post(std::move(task)); });
}

void Strand::run_blocking(BlockingPool& pool, Work blocking, Work then) {
  if (current_strand != state_.get()) {
    post([strand = *this, &pool, blocking = std::move(blocking), then = std::move(then)]() mutable {
      strand.run_blocking(pool, std::move(blocking), std::move(then));
    });
    return;
  }
  assert(!state_->step && "one run_blocking() per strand task");
  state_->step = Step{&pool, std::move(blocking), {}, std::move(then)};
}

void Strand::run_async(AsyncStart start, Work then) {
  if (current_strand != state_.get()) {
    post([strand = *this, start = std::move(start), then = std::move(then)]() mutable {
      strand.run_async(std::move(start), std::move(then));
    });
    return;
  }
  assert(!state_->step && "one run_blocking() or run_async() per strand task");
  state_->step = Step{nullptr, {}, std::move(start), std::move(then)};
}

void Strand::hand_off(const std::shared_ptr<State>& state) {
  Step step = std::move(*state->step);
  state->step.reset();  // before the post: the continuation may ask for the next step
  if (step.start) {
    // `then` is shared by resume() and the failure path below; only one of them runs it.
    auto then = std::make_shared<Work>(std::move(step.then));
    auto resumed = std::make_shared<std::atomic<bool>>(false);
    auto resume_once = [state, then, resumed] {
      if (!resumed->exchange(true)) resume(state, std::move(*then));
    };
    try {
      step.start(resume_once);
    } catch (...) {
      resume_once();  // the strand must not stay held
      throw;
    }
    return;
  }
  step.pool->post([state, blocking = std::move(step.blocking), then = std::move(step.then)]() mutable {
    try {
      blocking();
    } catch (...) {
      resume(state, std::move(then));  // the strand must not stay held
      throw;                           // BlockingPool logs it
    }
    resume(state, std::move(then));
  });
}

void Strand::resume(const std::shared_ptr<State>& state, Work then) {
  {
    std::lock_guard lock(state->mutex);
    state->queue.push_front(std::move(then));
  }
  // `running` stayed set through the step, so no other drain can have started.
  state->pool.post([state] { drain(state); });
}

void Strand::drain(const std::shared_ptr<State>& state) {
  // Run a bounded number of tasks, then yield the thread so one busy strand cannot
  // starve the others; the rest continue in a fresh pool task.
  for (int i = 0; i < 64; ++i) {
    Work task;
    {
      std::lock_guard lock(state->mutex);
      if (state->queue.empty()) {
        state->running = false;
        return;
      }
      task = std::move(state->queue.front());
      state->queue.pop_front();
    }
    const void* outer = current_strand;
    current_strand = state.get();
    task();
    current_strand = outer;
    if (state->step) {
      // The task handed a blocking step over: the strand waits for it, and resume()
      // drains on. Nothing of this task runs any more, so the step may start.
      hand_off(state);
      return;
    }
  }
  state->pool.post([state] { drain(state); });
}

}  // namespace agentry::core
