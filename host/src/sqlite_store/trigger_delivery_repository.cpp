#include "sqlite_store/repositories.hpp"
namespace agentry::sqlite_store {

std::optional<std::string> TriggerDeliveryRepository::run_of(std::string_view trigger, std::string_view dedup_key) {
  auto s = c_.prepare("SELECT run_id FROM trigger_deliveries WHERE trigger_name = ? AND dedup_key = ?");
  s.bind(1, trigger).bind(2, dedup_key);
  if (!s.step()) return std::nullopt;
  return s.column_text(0);
}

std::optional<std::string> TriggerDeliveryRepository::claim(std::string_view trigger, std::string_view dedup_key,
                                                            std::string_view run_id, std::string_view at) {
  // One writer: the insert and the read that follows it see the same database.
  auto s = c_.prepare(
      "INSERT INTO trigger_deliveries (trigger_name, dedup_key, run_id, received_at) VALUES (?, ?, ?, ?) "
      "ON CONFLICT (trigger_name, dedup_key) DO NOTHING");
  s.bind(1, trigger).bind(2, dedup_key).bind(3, run_id).bind(4, at);
  s.run();
  if (c_.changes() > 0) return std::nullopt;
  return run_of(trigger, dedup_key);
}

bool TriggerDeliveryRepository::release(std::string_view trigger, std::string_view dedup_key,
                                        std::string_view run_id) {
  auto s = c_.prepare("DELETE FROM trigger_deliveries WHERE trigger_name = ? AND dedup_key = ? AND run_id = ?");
  s.bind(1, trigger).bind(2, dedup_key).bind(3, run_id);
  s.run();
  return c_.changes() > 0;
}

}  // namespace agentry::sqlite_store
