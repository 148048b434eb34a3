#include "core/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace agentry::core::metrics {
namespace {

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string escape(std::string_view text, bool quotes) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '"' && quotes) out += "\\\"";
    else out += c;
  }
  return out;
}

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string with_label(const std::string& rendered, const std::string& extra) {
  if (rendered.empty()) return "{" + extra + "}";
  return rendered.substr(0, rendered.size() - 1) + "," + extra + "}";
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(new std::atomic<std::uint64_t>[bounds_.size() + 1]) {
  for (std::size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double v) {
  auto at = std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin();
  counts_[static_cast<std::size_t>(at)].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  s.bounds = bounds_;
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += counts_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

std::vector<double> latency_buckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

CollectorHandle& CollectorHandle::operator=(CollectorHandle&& other) noexcept {
  if (this != &other) {
    reset();
    registry_ = std::exchange(other.registry_, nullptr);
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

void CollectorHandle::reset() {
  if (registry_) registry_->remove_collector(id_);
  registry_ = nullptr;
}

std::string render_labels(const Labels& labels) {
  if (labels.empty()) return {};
  std::string out = "{";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (!valid_name(labels[i].first)) throw std::invalid_argument("bad metric label name: " + labels[i].first);
    if (i) out += ',';
    out += labels[i].first + "=\"" + escape(labels[i].second, true) + "\"";
  }
  return out + "}";
}

Registry::Family& Registry::family(std::string_view name, std::string_view help, Kind kind) {
  if (!valid_name(name)) throw std::invalid_argument("bad metric name: " + std::string(name));
  auto it = families_.find(name);
  if (it == families_.end()) it = families_.emplace(std::string(name), Family{kind, std::string(help), {}, {}, {}, {}}).first;
  if (it->second.kind != kind) throw std::logic_error("metric " + std::string(name) + " registered with two types");
  return it->second;
}

Counter& Registry::counter(std::string_view name, std::string_view help, const Labels& labels) {
  std::lock_guard lock(mutex_);
  auto& slot = family(name, help, Kind::counter).counters[render_labels(labels)];
  if (!slot) slot = std::make_unique<Counter>();
  return *slot;
}

Gauge& Registry::gauge(std::string_view name, std::string_view help, const Labels& labels) {
  std::lock_guard lock(mutex_);
  auto& slot = family(name, help, Kind::gauge).gauges[render_labels(labels)];
  if (!slot) slot = std::make_unique<Gauge>();
  return *slot;
}

Histogram& Registry::histogram(std::string_view name, std::string_view help, const std::vector<double>& bounds,
                               const Labels& labels) {
  std::lock_guard lock(mutex_);
  auto& f = family(name, help, Kind::histogram);
  if (f.bounds.empty()) f.bounds = bounds;
  auto& slot = f.histograms[render_labels(labels)];
  if (!slot) slot = std::make_unique<Histogram>(f.bounds);
  return *slot;
}

CollectorHandle Registry::add_collector(Collector collector) {
  std::lock_guard lock(collectors_mutex_);
  auto id = next_collector_++;
  collectors_.emplace(id, std::move(collector));
  return CollectorHandle(this, id);
}

void Registry::remove_collector(std::uint64_t id) {
  std::lock_guard lock(collectors_mutex_);
  collectors_.erase(id);
}

std::string Registry::render() {
  {
    std::lock_guard lock(collectors_mutex_);
    for (auto& [id, collect] : collectors_) collect();
  }
  std::lock_guard lock(mutex_);
  std::string out;
  for (const auto& [name, f] : families_) {
    out += "# HELP " + name + " " + escape(f.help, false) + "\n";
    switch (f.kind) {
      case Kind::counter:
        out += "# TYPE " + name + " counter\n";
        for (const auto& [labels, c] : f.counters) out += name + labels + " " + number(c->value()) + "\n";
        break;
      case Kind::gauge:
        out += "# TYPE " + name + " gauge\n";
        for (const auto& [labels, g] : f.gauges) out += name + labels + " " + number(g->value()) + "\n";
        break;
      case Kind::histogram:
        out += "# TYPE " + name + " histogram\n";
        for (const auto& [labels, h] : f.histograms) {
          auto s = h->snapshot();
          for (std::size_t i = 0; i < s.bounds.size(); ++i)
            out += name + "_bucket" + with_label(labels, "le=\"" + number(s.bounds[i]) + "\"") + " " +
                   number(static_cast<double>(s.cumulative[i])) + "\n";
          out += name + "_bucket" + with_label(labels, "le=\"+Inf\"") + " " + number(static_cast<double>(s.count)) + "\n";
          out += name + "_sum" + labels + " " + number(s.sum) + "\n";
          out += name + "_count" + labels + " " + number(static_cast<double>(s.count)) + "\n";
        }
        break;
    }
  }
  return out;
}

Registry& registry() {
  static Registry* the = new Registry();  // never destroyed: threads may still count at exit
  return *the;
}

}  // namespace agentry::core::metrics
