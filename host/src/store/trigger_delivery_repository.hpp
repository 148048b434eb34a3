#pragma once
// The dedup keys of inbound trigger deliveries (api/trigger_routes.cpp): one row per
// (trigger, key), naming the run the first delivery started, so that a redelivered
// event starts nothing. The unique key makes a claim atomic: of two concurrent
// deliveries of one event, one claims and the other finds the first one's run.

#include <optional>
#include <string>
#include <string_view>

namespace agentry::store {

class TriggerDeliveryRepository {
 public:
  virtual ~TriggerDeliveryRepository() = default;

  /// The run the delivery with this key started, if one did.
  virtual std::optional<std::string> run_of(std::string_view trigger, std::string_view dedup_key) = 0;
  /// Records `run_id` for the key unless the key is already recorded. nullopt when this
  /// call claimed it; else the run recorded first.
  virtual std::optional<std::string> claim(std::string_view trigger, std::string_view dedup_key,
                                           std::string_view run_id, std::string_view at) = 0;
  /// Forgets the key if it still names `run_id` (the run could not be started, so a
  /// redelivery may try again); whether it did.
  virtual bool release(std::string_view trigger, std::string_view dedup_key, std::string_view run_id) = 0;
};

}  // namespace agentry::store
