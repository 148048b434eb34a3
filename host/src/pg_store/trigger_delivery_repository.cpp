#include "pg_store/repositories.hpp"

namespace agentry::pg_store {

std::optional<std::string> TriggerDeliveryRepository::run_of(std::string_view trigger, std::string_view dedup_key) {
  auto result = c_.query("SELECT run_id FROM trigger_deliveries WHERE trigger_name = $1 AND dedup_key = $2",
                         {std::string(trigger), std::string(dedup_key)});
  if (result.rows() == 0) return std::nullopt;
  return result.row(0)[0].text();
}

std::optional<std::string> TriggerDeliveryRepository::claim(std::string_view trigger, std::string_view dedup_key,
                                                            std::string_view run_id, std::string_view at) {
  // A concurrent claim of the same key by another member waits on the unique index;
  // once it commits, this one's REPEATABLE READ transaction fails with a serialization
  // failure and the write queue runs it again, when the read below sees that row.
  auto inserted = c_.query(
      "INSERT INTO trigger_deliveries (trigger_name, dedup_key, run_id, received_at) VALUES ($1,$2,$3,$4) "
      "ON CONFLICT (trigger_name, dedup_key) DO NOTHING",
      {std::string(trigger), std::string(dedup_key), std::string(run_id), std::string(at)});
  if (inserted.affected_rows() > 0) return std::nullopt;
  return run_of(trigger, dedup_key);
}

bool TriggerDeliveryRepository::release(std::string_view trigger, std::string_view dedup_key,
                                        std::string_view run_id) {
  return c_.query("DELETE FROM trigger_deliveries WHERE trigger_name = $1 AND dedup_key = $2 AND run_id = $3",
                  {std::string(trigger), std::string(dedup_key), std::string(run_id)})
             .affected_rows() > 0;
}

}  // namespace agentry::pg_store
