#pragma once
// What other members ask of the runs this process drives (store/run_request_repository.hpp):
// looked at every `poll_every` and whenever a wake-up says there is something new, carried
// out by the handler, then removed. A request that arrives as the run moves to another
// member waits for that member, which finds it on its own first look. Only on a store
// several daemons share; on SQLite a run's requests are answered where it runs.

#include "core/executor.hpp"
#include "core/repeating_task.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace agentry::store {
class Store;
struct RunRequest;
}

namespace agentry::engine {

class RunInbox {
 public:
  using Handler = std::function<void(const store::RunRequest&)>;

  RunInbox(store::Store& db, core::ThreadPool& pool, std::string owner, Handler handler);
  ~RunInbox();
  RunInbox(const RunInbox&) = delete;
  RunInbox& operator=(const RunInbox&) = delete;

  void start(std::chrono::milliseconds poll_every);
  /// Idempotent; after it returns the handler is not called again.
  void stop();
  /// Looks soon, without waiting for the next poll (a hint: another member wrote one).
  void wake();
  /// One look now: carries out what is there; how many requests it removed.
  int serve();

 private:
  // Shared with posted wake-ups, which may run after this object is gone: they find
  // `open` false under `serving` and leave.
  struct Gate {
    std::mutex serving;  // one look at a time
    bool open = false;
    std::atomic<bool> wake_pending{false};
  };
  int serve_locked();

  store::Store& db_;
  core::ThreadPool& pool_;
  const std::string owner_;
  Handler handler_;
  std::mutex mutex_;
  std::unique_ptr<core::RepeatingTask> poll_;
  std::shared_ptr<Gate> gate_ = std::make_shared<Gate>();
};

}  // namespace agentry::engine
