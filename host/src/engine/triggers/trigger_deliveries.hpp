#pragma once
// Which runs inbound trigger deliveries started, by dedup key (store/
// trigger_delivery_repository.hpp), so that a redelivered event starts nothing. The
// API checks here before it plans a run, and claims the key with the planned run's id
// before it writes the run; when the start then fails it releases the key again.

#include "core/result.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace agentry::store {
class Store;
}  // namespace agentry::store

namespace agentry::engine {

class TriggerDeliveries {
 public:
  explicit TriggerDeliveries(store::Store& db) : db_(db) {}

  /// The run an earlier delivery with this key started, if any.
  core::Result<std::optional<std::string>> run_of(std::string_view trigger, std::string_view dedup_key) const;
  /// Claims the key for `run_id`: nullopt when this delivery is the first, else the run
  /// the first one claimed it for. Atomic: of concurrent claims, exactly one wins.
  core::Result<std::optional<std::string>> claim(std::string_view trigger, std::string_view dedup_key,
                                                 std::string_view run_id);
  /// Forgets the key if it still names `run_id`.
  core::Result<void> release(std::string_view trigger, std::string_view dedup_key, std::string_view run_id);

 private:
  store::Store& db_;
};

}  // namespace agentry::engine
