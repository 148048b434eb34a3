#include "api/mcp/mcp_resources.hpp"

#include "core/ids.hpp"

#include <charconv>

namespace agentry::api::mcp {
namespace json = boost::json;

namespace {

constexpr std::string_view scheme = "agentry://runs/";

core::Failure bad_uri(std::string_view uri, const std::string& why) {
  return core::fail(core::ErrorCode::invalid_request, "resource '" + std::string(uri) + "': " + why,
                    {{"field", "uri"}});
}

}  // namespace

core::Result<ResourceTarget> resource_target(std::string_view uri) {
  if (uri.substr(0, scheme.size()) != scheme)
    return bad_uri(uri, "agentry's resources are agentry://runs/<runId> and agentry://runs/<runId>/timeline");
  std::string_view rest = uri.substr(scheme.size());
  std::string_view query;
  if (auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  const auto slash = rest.find('/');
  const std::string run_id(rest.substr(0, slash));
  if (!core::is_valid_run_id(run_id)) return bad_uri(uri, "'" + run_id + "' is not a valid run id");
  const std::string_view tail = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
  if (tail.empty()) {
    if (!query.empty()) return bad_uri(uri, "a run's detail takes no query");
    return ResourceTarget{"runs.get", {{"runId", run_id}}};
  }
  if (tail != "/timeline") return bad_uri(uri, "unknown part '" + std::string(tail) + "'");
  json::object params{{"runId", run_id}};
  if (!query.empty()) {
    constexpr std::string_view after = "after=";
    std::int64_t cursor = -1;
    const auto digits = query.substr(query.substr(0, after.size()) == after ? after.size() : query.size());
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cursor);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() || cursor < 0)
      return bad_uri(uri, "the timeline's query is after=<cursor>, a cursor being a whole number");
    params["after"] = cursor;
  }
  return ResourceTarget{"runs.timelineHistory", std::move(params)};
}

std::string run_resource_uri(std::string_view run_id) { return std::string(scheme) + std::string(run_id); }

json::array resource_templates() {
  return {json::object{{"uriTemplate", "agentry://runs/{runId}"},
                       {"name", "run"},
                       {"title", "A run's detail"},
                       {"description", "Status, agent, sessions, attempts, tasks, pending approvals and what the run "
                                       "can do next, as show_run gives it"},
                       {"mimeType", "application/json"}},
          json::object{{"uriTemplate", "agentry://runs/{runId}/timeline{?after}"},
                       {"name", "run-timeline"},
                       {"title", "A run's timeline"},
                       {"description", "One page of the run's timeline after a cursor (default 0), as read_timeline "
                                       "gives it; lastCursor is where the next page starts"},
                       {"mimeType", "application/json"}}};
}

}  // namespace agentry::api::mcp
