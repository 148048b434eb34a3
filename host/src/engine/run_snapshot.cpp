#include "engine/run_snapshot.hpp"

#include "core/clock.hpp"
#include "store/run_repository.hpp"
#include "store/task_repository.hpp"
#include "store/transaction.hpp"

#include <boost/json.hpp>

namespace agentry::engine {
namespace json = boost::json;

void save_initial_snapshot(store::Transaction& c, const core::Run& run) {
  json::array tasks;
  for (const auto& t : c.tasks().list(run.id)) {
    tasks.push_back(json::object{{"id", t.id},
                                 {"title", t.title},
                                 {"body", t.body},
                                 {"status", core::to_string(t.status)},
                                 {"notes", t.notes},
                                 {"source", t.source},
                                 {"position", t.position}});
  }
  json::object snapshot{{"frozen", core::to_json(run.frozen)}, {"tasks", std::move(tasks)}};
  snapshot["backendSessionId"] = run.backend_session_id ? json::value(*run.backend_session_id) : json::value(nullptr);
  c.runs().set_initial_snapshot(run.id, json::serialize(snapshot));
}

void restore_initial_snapshot(store::Transaction& c, core::Run& run) {
  auto text = c.runs().initial_snapshot(run.id);
  if (!text || text->empty()) return;
  auto snapshot = json::parse(*text).as_object();
  run.frozen = core::frozen_inputs_from_json(snapshot.at("frozen"));
  const auto& session = snapshot.at("backendSessionId");
  run.backend_session_id = session.is_string() ? std::optional<std::string>(std::string(session.as_string()))
                                               : std::nullopt;
  c.tasks().remove_all(run.id);
  auto now = core::now_iso8601();
  for (const auto& item : snapshot.at("tasks").as_array()) {
    const auto& o = item.as_object();
    core::Task t;
    t.run_id = run.id;
    t.id = json::value_to<std::string>(o.at("id"));
    t.title = json::value_to<std::string>(o.at("title"));
    t.body = json::value_to<std::string>(o.at("body"));
    t.status = core::parse_task_status(json::value_to<std::string>(o.at("status"))).value_or(core::TaskStatus::pending);
    t.notes = json::value_to<std::string>(o.at("notes"));
    t.source = json::value_to<std::string>(o.at("source"));
    t.position = static_cast<int>(o.at("position").as_int64());
    t.created_at = now;
    t.updated_at = now;
    c.tasks().insert(t);
  }
}

}  // namespace agentry::engine
