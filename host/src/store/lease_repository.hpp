#pragma once
// Run leases: the one controller (a daemon, or an embedded CLI) that drives a running run,
// with an epoch and an expiry. Whoever opens a session of a run, or takes over one, takes
// its lease, and the epoch grows each time; every write the controller makes for the run
// first checks it still holds that epoch (hold()), in the same transaction, so a
// controller that was paused, cut off or slow cannot write once the run moved on. Expiry
// is the database's clock, in epoch milliseconds, never a member's, so members whose
// clocks disagree still agree on whose lease has run out. A run's lease goes with it.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {

struct RunLease {
  std::string run_id;
  std::string owner;  ///< the controller that took it last
  bool held = false;  ///< false once it let go (its session ended)
  std::int64_t epoch = 0;
  std::int64_t expires_ms = 0;  ///< by the database's clock
  bool expired = false;         ///< held, and past expiry as of the read
};

/// A running run with a live backend (not passive), its controller (empty when it
/// detached) and its lease when it has one.
struct DrivenRun {
  std::string run_id;
  std::string controller_id;
  std::optional<RunLease> lease;
};

class LeaseRepository {
 public:
  virtual ~LeaseRepository() = default;

  /// `owner` takes the run's lease until `ttl_ms` from now, with a new epoch (returned),
  /// whoever held it: the caller decided in this transaction that the run is its own.
  virtual std::int64_t acquire(const std::string& run_id, const std::string& owner, std::int64_t ttl_ms) = 0;
  /// `owner` takes the lease `from` still holds at `epoch` (only once it has expired,
  /// with `only_if_expired`; without it, the caller knows `from` is gone); the new epoch,
  /// or nullopt when someone renewed or took it first.
  virtual std::optional<std::int64_t> take_over(const std::string& run_id, const std::string& from,
                                                std::int64_t epoch, const std::string& owner, std::int64_t ttl_ms,
                                                bool only_if_expired) = 0;
  /// True when `owner` may still write for the run it took at `epoch`: it holds the lease
  /// (perhaps at a later epoch, for a later session of its own), or let it go at `epoch`
  /// and nobody took it since (its session ended; its last records follow). The lease
  /// stays locked until the transaction ends, so nobody takes it before the commit.
  virtual bool hold(const std::string& run_id, const std::string& owner, std::int64_t epoch) = 0;
  /// Extends the leases `owner` holds on `run_ids` (the runs it drives now) to `ttl_ms`
  /// from now; those it still held. A lease of a run it no longer drives runs out.
  virtual std::vector<RunLease> renew(const std::string& owner, const std::vector<std::string>& run_ids,
                                      std::int64_t ttl_ms) = 0;
  /// The session ended: nobody holds the run; owner and epoch stay, for its last
  /// records and for the next epoch to grow from.
  virtual void release(const std::string& run_id) = 0;
  /// `owner` is leaving and lets others take its runs at once (their agents work on).
  virtual int expire_all(const std::string& owner) = 0;
  /// How many runs `owner` holds now: its live runs, as its capacity counts them.
  virtual std::int64_t held_by(const std::string& owner) = 0;
  /// The same for every owner holding one: owner -> runs.
  virtual std::map<std::string, std::int64_t> held_counts() = 0;
  virtual std::optional<RunLease> get(const std::string& run_id) = 0;
  /// Held leases past their expiry: runs whose controller fell silent.
  virtual std::vector<RunLease> expired() = 0;
  /// Every running run that is not passive, with its lease: in one statement, for
  /// the sweep that looks for runs whose controller is gone (engine/reconciliation.cpp).
  virtual std::vector<DrivenRun> driven_runs() = 0;
};

}  // namespace agentry::store
