// Live runs' backend events weigh on the daemon's stream memory from the backend's emit()
// until the batch they were written in is freed after its commit; a tight budget slows
// the backend down (AGENTRY_ERR_BUSY, retried) and loses nothing.
#include "live_run_fixture.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace agentry::engine::testing {
namespace {

class StreamMemoryTest : public LiveRunTest {
 protected:
  void SetUp() override {
    LiveRunTest::SetUp();
    stream_memory_ = std::make_shared<core::ByteBudget>(std::size_t{1} << 20);
    restart();
    // Flat out: far faster than the writer, so the budget is what holds the backend back.
    write_config("agents/flood/agent.md", R"(---
schemaVersion: 1
backend: mock
backendConfig:
  mock: {"steps": [{"events": 3000, "kind": "notice"}]}
---
Floods its timeline.
)");
  }
};

TEST_F(StreamMemoryTest, RunsFloodingTheStoreStayWithinTheBudgetLoseNothingAndGiveItAllBack) {
  std::atomic<bool> watching{true};
  std::atomic<std::size_t> peak{0};
  std::thread watcher([&] {
    while (watching) {
      peak = std::max(peak.load(), stream_memory_->used());
      std::this_thread::yield();
    }
  });
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(start_taskless("flood").id);
  for (const auto& id : ids) {
    EXPECT_EQ(settled(id).run.status, core::RunStatus::success);
    const auto timeline = timeline_of(id);
    EXPECT_EQ(std::count_if(timeline.begin(), timeline.end(), [](const auto& e) { return e.kind == "notice"; }), 3000);
  }
  watching = false;
  watcher.join();
  // Each run may always queue one event past the limit (so none waits on another).
  EXPECT_LE(peak.load(), stream_memory_->limit() + 4 * 4096);
  EXPECT_GT(peak.load(), 0u);
  EXPECT_TRUE(eventually([&] { return stream_memory_->used() == 0; }))
      << stream_memory_->used() << " bytes still held after every run ended";
}

}  // namespace
}  // namespace agentry::engine::testing
