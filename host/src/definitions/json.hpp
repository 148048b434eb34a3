#pragma once
// Definitions as API payloads (Boost.JSON), camelCase as in the files.
//   DefinitionListResult: { kind, entries: [summary...], warnings: [{path, field, message}] }
//   DefinitionDetail:     { kind, <kind>: { every field..., instructions }, sourcePath, warnings }
//   task detail:          { kind: "task", task: { id, title, body, hooks }, sourcePath, warnings }

#include "definitions/loader.hpp"

#include <boost/json/object.hpp>

namespace agentry::definitions {

// Every field of one definition (the inner object of a detail payload).
boost::json::object to_json(const AgentDefinition& agent);
boost::json::object to_json(const AssignmentDefinition& assignment);
boost::json::object to_json(const LauncherDefinition& launcher);
boost::json::object to_json(const EnvironmentDefinition& environment);
boost::json::object to_json(const TaskDefinition& task);
boost::json::object to_json(const ResolvedTask& task);

// A list entry: name, sourcePath, description and a few fields worth showing in a list.
boost::json::object to_summary_json(const AgentDefinition& agent);
boost::json::object to_summary_json(const AssignmentDefinition& assignment);
boost::json::object to_summary_json(const LauncherDefinition& launcher);
boost::json::object to_summary_json(const EnvironmentDefinition& environment);
boost::json::object to_summary_json(const TaskDefinition& task);

boost::json::object to_detail_json(const AgentDefinition& agent);
boost::json::object to_detail_json(const AssignmentDefinition& assignment);
boost::json::object to_detail_json(const LauncherDefinition& launcher);
boost::json::object to_detail_json(const EnvironmentDefinition& environment);
boost::json::object to_detail_json(const TaskDefinition& task);

boost::json::object to_json(const ListResult<AgentDefinition>& list);
boost::json::object to_json(const ListResult<AssignmentDefinition>& list);
boost::json::object to_json(const ListResult<LauncherDefinition>& list);
boost::json::object to_json(const ListResult<EnvironmentDefinition>& list);
boost::json::object to_json(const ListResult<TaskDefinition>& list);

}  // namespace agentry::definitions
