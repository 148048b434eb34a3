#pragma once
// One limit on bytes that many holders share (the daemon's stream memory: the backend
// events every live run holds until the store has them, and the live timeline windows):
// a holder takes before it keeps, gives back when it lets go, and is refused once the
// whole would pass the limit.

#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

namespace agentry::core {

class ByteBudget {
 public:
  explicit ByteBudget(std::size_t limit) : limit_(limit) {}

  /// Takes `bytes` unless that would pass the limit.
  bool try_take(std::size_t bytes) { return try_take_below(bytes, limit_); }
  /// Takes `bytes` unless the whole would pass `ceiling` (a holder that must leave the
  /// rest of the limit to others).
  bool try_take_below(std::size_t bytes, std::size_t ceiling) {
    std::size_t used = used_.load(std::memory_order_relaxed);
    do {
      if (used + bytes > ceiling) return false;
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

/// Bytes taken from a budget that travel with what holds them (a batch on its way to the
/// store): given back when the hold is released or destroyed, wherever that happens. The
/// budget is shared so a hold may outlive whoever made it.
class ByteHold {
 public:
  ByteHold() = default;
  ByteHold(std::shared_ptr<ByteBudget> budget, std::size_t bytes) : budget_(std::move(budget)), bytes_(bytes) {}
  ByteHold(ByteHold&& other) noexcept
      : budget_(std::move(other.budget_)), bytes_(std::exchange(other.bytes_, 0)) {}
  ByteHold& operator=(ByteHold&& other) noexcept {
    if (this != &other) {
      release();
      budget_ = std::move(other.budget_);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  ByteHold(const ByteHold&) = delete;
  ByteHold& operator=(const ByteHold&) = delete;
  ~ByteHold() { release(); }

  void release() {
    if (budget_ && bytes_ > 0) budget_->give_back(bytes_);
    bytes_ = 0;
  }
  std::size_t bytes() const { return bytes_; }

 private:
  std::shared_ptr<ByteBudget> budget_;
  std::size_t bytes_ = 0;
};

}  // namespace agentry::core
