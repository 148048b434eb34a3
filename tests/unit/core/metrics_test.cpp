#include "core/metrics.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <vector>

namespace agentry::core::metrics {
namespace {

TEST(Metrics, RendersCountersAndGaugesWithHelpTypeAndEscapedLabels) {
  Registry r;
  r.counter("jobs_total", "Jobs done.", {{"queue", "a\"b\\c\nd"}}).inc(3);
  r.gauge("depth", "Queue depth.").set(2.5);
  auto text = r.render();
  EXPECT_NE(text.find("# HELP jobs_total Jobs done.\n# TYPE jobs_total counter\n"), std::string::npos) << text;
  EXPECT_NE(text.find("jobs_total{queue=\"a\\\"b\\\\c\\nd\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE depth gauge\ndepth 2.5\n"), std::string::npos) << text;
}

TEST(Metrics, TheSameNameAndLabelsGiveTheSameMetric) {
  Registry r;
  r.counter("c_total", "C.", {{"k", "v"}}).inc();
  r.counter("c_total", "C.", {{"k", "v"}}).inc();
  r.counter("c_total", "C.", {{"k", "w"}}).inc();
  auto text = r.render();
  EXPECT_NE(text.find("c_total{k=\"v\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("c_total{k=\"w\"} 1\n"), std::string::npos) << text;
  EXPECT_THROW(r.gauge("c_total", "C."), std::logic_error);
  EXPECT_THROW(r.counter("bad-name", "x"), std::invalid_argument);
  EXPECT_THROW(r.counter("ok", "x", {{"bad label", "v"}}), std::invalid_argument);
}

TEST(Metrics, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  Registry r;
  auto& h = r.histogram("lat_seconds", "Latency.", {0.1, 1}, {{"class", "runs"}});
  h.observe(0.05);
  h.observe(0.1);  // on a bound: counted in that bucket (le)
  h.observe(0.5);
  h.observe(7);
  auto text = r.render();
  EXPECT_NE(text.find("lat_seconds_bucket{class=\"runs\",le=\"0.1\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("lat_seconds_bucket{class=\"runs\",le=\"1\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("lat_seconds_bucket{class=\"runs\",le=\"+Inf\"} 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("lat_seconds_sum{class=\"runs\"} 7.65\n"), std::string::npos) << text;
  EXPECT_NE(text.find("lat_seconds_count{class=\"runs\"} 4\n"), std::string::npos) << text;
}

TEST(Metrics, CollectorsRunAtEachScrapeUntilTheirHandleGoes) {
  Registry r;
  int calls = 0;
  {
    auto handle = r.add_collector([&] { r.gauge("seen", "Scrapes seen.").set(++calls); });
    EXPECT_NE(r.render().find("seen 1\n"), std::string::npos);
    EXPECT_NE(r.render().find("seen 2\n"), std::string::npos);
  }
  r.render();
  EXPECT_EQ(calls, 2);
}

TEST(Metrics, ConcurrentUpdatesAreAllCounted) {
  Registry r;
  auto& c = r.counter("n_total", "N.");
  auto& h = r.histogram("h", "H.", latency_buckets());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.inc();
        h.observe(0.001);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.value(), 40000);
  EXPECT_EQ(h.snapshot().count, 40000u);
}

}  // namespace
}  // namespace agentry::core::metrics
