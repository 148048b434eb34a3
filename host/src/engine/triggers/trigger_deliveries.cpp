#include "engine/triggers/trigger_deliveries.hpp"

#include "core/clock.hpp"
#include "store/store.hpp"
#include "store/trigger_delivery_repository.hpp"

namespace agentry::engine {

core::Result<std::optional<std::string>> TriggerDeliveries::run_of(std::string_view trigger,
                                                                   std::string_view dedup_key) const {
  return db_.read([&](store::Transaction& t) -> core::Result<std::optional<std::string>> {
    return t.trigger_deliveries().run_of(trigger, dedup_key);
  });
}

core::Result<std::optional<std::string>> TriggerDeliveries::claim(std::string_view trigger, std::string_view dedup_key,
                                                                  std::string_view run_id) {
  const std::string at = core::now_iso8601();
  return db_.write<std::optional<std::string>>([&](store::Transaction& t) -> core::Result<std::optional<std::string>> {
    return t.trigger_deliveries().claim(trigger, dedup_key, run_id, at);
  });
}

core::Result<void> TriggerDeliveries::release(std::string_view trigger, std::string_view dedup_key,
                                              std::string_view run_id) {
  auto released = db_.write<bool>([&](store::Transaction& t) -> core::Result<bool> {
    return t.trigger_deliveries().release(trigger, dedup_key, run_id);
  });
  if (!released) return released.failure();
  return core::ok();
}

}  // namespace agentry::engine
