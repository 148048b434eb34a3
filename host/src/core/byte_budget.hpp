#pragma once
// One limit on bytes that many holders share (the daemon's stream memory: the backend
// events every live run holds until the store has them, the live timeline windows and
// what WebSocket connections have ready to send): a holder takes before it keeps, gives back when
// it lets go, and is refused once the whole would pass the limit. A share of a budget is
// a budget with a parent: what it takes counts in both, and it is refused when either
// would pass its limit.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

namespace agentry::core {

class ByteBudget {
 public:
  explicit ByteBudget(std::size_t limit, std::shared_ptr<ByteBudget> parent = {})
      : limit_(limit), parent_(std::move(parent)) {}

  /// Takes `bytes` unless that would pass the limit (or the parent's).
  bool try_take(std::size_t bytes) { return try_take_below(bytes, limit_); }
  /// Takes `bytes` unless the whole would pass `ceiling` (a holder that must leave the
  /// rest of the limit to others) or the parent's limit.
  bool try_take_below(std::size_t bytes, std::size_t ceiling) {
    std::size_t used = used_.load(std::memory_order_relaxed);
    do {
      if (used + bytes > ceiling) return false;
    } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
    if (parent_ && !parent_->try_take(bytes)) {
      used_.fetch_sub(bytes, std::memory_order_relaxed);
      return false;
    }
    return true;
  }
  /// Takes `bytes` whatever the limit (what must never be refused: a holder's first).
  void take(std::size_t bytes) {
    used_.fetch_add(bytes, std::memory_order_relaxed);
    if (parent_) parent_->take(bytes);
  }
  void give_back(std::size_t bytes) {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    if (parent_) parent_->give_back(bytes);
  }

  std::size_t used() const { return used_.load(std::memory_order_relaxed); }
  std::size_t limit() const { return limit_; }

 private:
  const std::size_t limit_;
  const std::shared_ptr<ByteBudget> parent_;
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

  /// Takes `bytes` more, whatever the limit (what is already in memory), for a hold
  /// whose size follows what it holds (a connection's unsent bytes).
  void grow(std::size_t bytes) {
    if (!budget_) return;
    budget_->take(bytes);
    bytes_ += bytes;
  }
  /// Gives back `bytes` of what it holds (at most all of it).
  void shrink(std::size_t bytes) {
    bytes = std::min(bytes, bytes_);
    if (budget_ && bytes > 0) budget_->give_back(bytes);
    bytes_ -= bytes;
  }
  void release() { shrink(bytes_); }
  std::size_t bytes() const { return bytes_; }

 private:
  std::shared_ptr<ByteBudget> budget_;
  std::size_t bytes_ = 0;
};

}  // namespace agentry::core
