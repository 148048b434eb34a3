#include "store/trigger_delivery_repository.hpp"

#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace agentry::sqlite_store {
namespace {

using testing::read;
using testing::write;

class TriggerDeliveryRepositoryTest : public testing::StoreTest {
 protected:
  std::optional<std::string> claim(const std::string& trigger, const std::string& key, const std::string& run) {
    std::optional<std::string> out;
    write(db(), [&](store::Transaction& c) { out = c.trigger_deliveries().claim(trigger, key, run, "2026-01-01T00:00:00.000Z"); });
    return out;
  }
  std::optional<std::string> run_of(const std::string& trigger, const std::string& key) {
    return read(db(), [&](store::Transaction& c) { return c.trigger_deliveries().run_of(trigger, key); });
  }
  bool release(const std::string& trigger, const std::string& key, const std::string& run) {
    bool out = false;
    write(db(), [&](store::Transaction& c) { out = c.trigger_deliveries().release(trigger, key, run); });
    return out;
  }
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(TriggerDeliveryRepositoryTest);

TEST_P(TriggerDeliveryRepositoryTest, TheFirstClaimOfAKeyWinsAndLaterOnesFindItsRun) {
  EXPECT_EQ(run_of("issues", "d-1"), std::nullopt);
  EXPECT_EQ(claim("issues", "d-1", "run_a"), std::nullopt);
  EXPECT_EQ(claim("issues", "d-1", "run_b"), "run_a");
  EXPECT_EQ(run_of("issues", "d-1"), "run_a");
  // Keys are per trigger, and compared exactly.
  EXPECT_EQ(claim("other", "d-1", "run_c"), std::nullopt);
  EXPECT_EQ(claim("issues", "D-1", "run_d"), std::nullopt);
}

TEST_P(TriggerDeliveryRepositoryTest, ReleaseForgetsOnlyTheKeyOfThatRun) {
  ASSERT_EQ(claim("issues", "d-1", "run_a"), std::nullopt);
  EXPECT_FALSE(release("issues", "d-1", "run_b"));
  EXPECT_EQ(run_of("issues", "d-1"), "run_a");
  EXPECT_TRUE(release("issues", "d-1", "run_a"));
  EXPECT_EQ(run_of("issues", "d-1"), std::nullopt);
  EXPECT_EQ(claim("issues", "d-1", "run_b"), std::nullopt);
}

}  // namespace
}  // namespace agentry::sqlite_store
