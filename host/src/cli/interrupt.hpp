#pragma once
// Ctrl-C while a command follows a run. While an InterruptGuard lives, the first SIGINT
// or SIGTERM only sets a flag the follower polls (it then aborts the run and exits
// 130); a second one exits at once with 130, leaving the run to whoever drives it.

namespace agentry::cli {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// True once a signal arrived while a guard was installed.
  static bool interrupted();
  /// For tests: behave as if a signal arrived.
  static void simulate();
};

}  // namespace agentry::cli
