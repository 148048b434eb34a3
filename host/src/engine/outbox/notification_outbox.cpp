#include "engine/outbox/notification_outbox.hpp"

#include "core/clock.hpp"
#include "core/utf8.hpp"
#include "store/notification_repository.hpp"
#include "store/transaction.hpp"
#include "core/json_strings.hpp"

#include <boost/json/serialize.hpp>

namespace agentry::engine::detail {
namespace json = boost::json;

namespace {

constexpr std::size_t max_occurrence_bytes = 200;

}  // namespace

int queue_notification(store::Transaction& c, const core::Run& run, std::string_view event,
                       const std::string& occurrence, json::object extra, bool held) {
  if (run.frozen.notify.empty()) return 0;
  const std::string key = run.id + ":" + std::string(event) + ":" +
                          core::sanitize_utf8(occurrence.substr(0, max_occurrence_bytes));
  const auto now = core::now_iso8601();
  json::object body;
  body["event"] = event;
  body["idempotencyKey"] = key;
  body["occurredAt"] = now;
  body["run"] = json::object{{"id", run.id},
                             {"name", core::text_or_null(run.name)},
                             {"agent", run.frozen.agent_name},
                             {"assignment", run.frozen.assignment_name.empty()
                                                ? json::value(nullptr)
                                                : json::value(run.frozen.assignment_name)},
                             {"status", core::to_string(run.status)},
                             {"statusReason", run.status_reason},
                             {"sessionIndex", std::max(0, run.session_count - 1)},
                             {"runGroupId", run.run_group_id},
                             {"cwd", run.cwd}};
  for (auto& [k, v] : extra) body[k] = std::move(v);
  const std::string payload = json::serialize(body);
  int queued = 0;
  for (std::size_t i = 0; i < run.frozen.notify.size(); ++i) {
    const auto& target = run.frozen.notify[i];
    if (!target.wants(event)) continue;
    store::OutboxEntry e;
    e.run_id = run.id;
    e.event = std::string(event);
    e.idempotency_key = key;
    e.target_index = static_cast<int>(i);
    e.target_json = json::serialize(core::to_json(target));
    e.payload_json = payload;
    e.state = held ? "held" : "pending";
    e.next_attempt_ms = core::now_ms();
    e.created_at = e.updated_at = now;
    if (c.outbox().insert(e)) ++queued;
  }
  return queued;
}

}  // namespace agentry::engine::detail
