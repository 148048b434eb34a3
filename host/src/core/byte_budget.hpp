#pragma once
// One limit on bytes that many holders share (the backend events every live run holds
// while they wait for the store): a holder takes before it keeps, gives back when it
// lets go, and is refused once the whole would pass the limit.

#include <atomic>
#include <cstddef>

namespace agentry::core {

class ByteBudget {
 public:
  explicit ByteBudget(std::size_t limit) : limit_(limit) {}

  /// Takes `bytes` unless that would pass the limit.
  bool try_take(std::size_t bytes) {
    std::size_t used = used_.load(std::memory_order_relaxed);
    do {
      if (used + bytes > limit_) return false;
    } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
    return true;
  }
  /// Takes `bytes` whatever the limit (what must never be refused: a holder's first).
  void take(std::size_t bytes) { used_.fetch_add(bytes, std::memory_order_relaxed); }
  void give_back(std::size_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }

  std::size_t used() const { return used_.load(std::memory_order_relaxed); }
  std::size_t limit() const { return limit_; }

 private:
  const std::size_t limit_;
  std::atomic<std::size_t> used_{0};
};

}  // namespace agentry::core
