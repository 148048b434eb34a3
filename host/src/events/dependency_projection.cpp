#include "events/dependency_projection.hpp"

namespace agentry::events {
namespace json = boost::json;

json::object dependency_state_json(const core::Run& run) {
  std::int64_t satisfied = 0;
  for (const auto& d : run.dependencies)
    if (d.satisfied) ++satisfied;
  const auto total = static_cast<std::int64_t>(run.dependencies.size());
  const char* state = total == 0 ? "none" : satisfied == total ? "satisfied" : "waiting";
  return {{"state", state}, {"total", total}, {"satisfied", satisfied}};
}

json::array dependencies_json(const core::Run& run) {
  json::array out;
  for (const auto& s : run.dependencies) {
    const auto& d = s.dependency;
    json::object o{{"type", core::to_string(d.type)}};
    o[d.type == core::DependencyType::run ? "runId" : "groupId"] = d.target;
    o["satisfied"] = s.satisfied;
    o["missing"] = s.missing;
    if (d.type == core::DependencyType::run) {
      o["status"] = s.status ? json::value(core::to_string(*s.status)) : json::value(nullptr);
    } else {
      o["members"] = s.members;
      o["succeeded"] = s.succeeded;
      o["archivedExcluded"] = s.archived;
    }
    o["createdAt"] = d.created_at;
    out.push_back(std::move(o));
  }
  return out;
}

json::array dependents_json(const core::Run& run) {
  json::array out;
  for (const auto& d : run.dependents) {
    json::object o{{"runId", d.run_id}, {"status", core::to_string(d.status)}, {"type", core::to_string(d.via)}};
    if (d.via == core::DependencyType::group) o["groupId"] = d.target;
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace agentry::events
