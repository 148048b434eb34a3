#pragma once
// The process's metrics: counters, gauges and histograms that any module updates where
// the thing happens, and collectors that read a value off its owner when scraped
// (`GET /metrics` renders them in Prometheus's text format, api/metrics_route).
//
// A metric is found once, by name and labels, and its reference kept: updating it is
// one atomic operation, never a lookup. Label values must come from small fixed sets
// (a route class, a status), never from a request, or the series never stop growing.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentry::core::metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void inc(double by = 1) { value_.fetch_add(by, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void add(double by) { value_.fetch_add(by, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  /// `bounds`: the buckets' upper bounds, ascending; +Inf is implied.
  explicit Histogram(std::vector<double> bounds);
  void observe(double v);

  struct Snapshot {
    std::vector<double> bounds;
    std::vector<std::uint64_t> cumulative;  // one per bound, then +Inf
    double sum = 0;
    std::uint64_t count = 0;
  };
  Snapshot snapshot() const;

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // bounds_.size() + 1
  std::atomic<double> sum_{0};
};

/// Bucket bounds in seconds for latencies from 100 µs to 10 s.
std::vector<double> latency_buckets();

/// Called at each scrape to set the gauges whose value lives elsewhere (the store's
/// counts, a queue's length). Runs on the scraping thread: it may read, never block long.
using Collector = std::function<void()>;

class Registry;

/// Keeps a collector registered while it lives.
class CollectorHandle {
 public:
  CollectorHandle() = default;
  CollectorHandle(Registry* registry, std::uint64_t id) : registry_(registry), id_(id) {}
  CollectorHandle(CollectorHandle&& other) noexcept { *this = std::move(other); }
  CollectorHandle& operator=(CollectorHandle&& other) noexcept;
  CollectorHandle(const CollectorHandle&) = delete;
  CollectorHandle& operator=(const CollectorHandle&) = delete;
  ~CollectorHandle() { reset(); }
  void reset();

 private:
  Registry* registry_ = nullptr;
  std::uint64_t id_ = 0;
};

class Registry {
 public:
  Counter& counter(std::string_view name, std::string_view help, const Labels& labels = {});
  Gauge& gauge(std::string_view name, std::string_view help, const Labels& labels = {});
  Histogram& histogram(std::string_view name, std::string_view help, const std::vector<double>& bounds,
                       const Labels& labels = {});

  [[nodiscard]] CollectorHandle add_collector(Collector collector);

  /// Runs the collectors, then renders every family in Prometheus's text format 0.0.4.
  std::string render();

 private:
  friend class CollectorHandle;
  enum class Kind { counter, gauge, histogram };
  struct Family {
    Kind kind;
    std::string help;
    std::vector<double> bounds;
    std::map<std::string, std::unique_ptr<Counter>> counters;  // keyed by rendered labels
    std::map<std::string, std::unique_ptr<Gauge>> gauges;
    std::map<std::string, std::unique_ptr<Histogram>> histograms;
  };
  Family& family(std::string_view name, std::string_view help, Kind kind);
  void remove_collector(std::uint64_t id);

  std::mutex mutex_;
  std::map<std::string, Family, std::less<>> families_;
  std::mutex collectors_mutex_;
  std::map<std::uint64_t, Collector> collectors_;
  std::uint64_t next_collector_ = 1;
};

/// The process's registry.
Registry& registry();

/// `{a="x",b="y"}` with Prometheus's escaping; empty for no labels.
std::string render_labels(const Labels& labels);

}  // namespace agentry::core::metrics
