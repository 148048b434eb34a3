// HTTP routes for a run's history: audit records and timeline events, paged by cursor.

#include "api/api_context.hpp"
#include "api/route_support.hpp"
#include "api/router.hpp"
#include "events/projections.hpp"

namespace agentry::api {
namespace json = boost::json;
namespace {

core::Result<store::EventPageQuery> parse_page(const HttpRequest& r) {
  if (auto ok = allow_query(r, {"after", "limit"}); !ok) return ok.failure();
  store::EventPageQuery q;
  auto number = [&](const char* key, std::int64_t min, std::int64_t max, auto& out) -> core::Result<void> {
    auto* v = r.query_param(key);
    if (!v) return core::ok();
    char* end = nullptr;
    long long n = std::strtoll(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0' || n < min || n > max)
      return core::fail(core::ErrorCode::invalid_request,
                        std::string(key) + " must be an integer from " + std::to_string(min) + " to " +
                            std::to_string(max),
                        {{"parameter", key}});
    out = static_cast<std::remove_reference_t<decltype(out)>>(n);
    return core::ok();
  };
  if (auto ok = number("after", 0, INT64_MAX, q.after); !ok) return ok.failure();
  if (auto ok = number("limit", 1, 5000, q.limit); !ok) return ok.failure();
  return q;
}

}  // namespace

void add_history_routes(Router& router, ApiContext& ctx) {
  auto& engine = ctx.engine;
  router.add("GET", "/api/runs/:runId/audit", [&engine](const HttpRequest& r) {
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    auto page = parse_page(r);
    if (!page) return error_response(page.error());
    auto events = engine.audit(*id, *page);
    if (!events) return error_response(events.error());
    json::array out;
    for (const auto& e : *events) out.push_back(events::audit_event_json(e));
    std::int64_t last = events->empty() ? page->after : events->back().cursor;
    return json_response(200, json::object{{"runId", *id}, {"events", std::move(out)}, {"lastCursor", last}});
  });
  router.add("GET", "/api/runs/:runId/timeline", [&engine](const HttpRequest& r) {
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    auto page = parse_page(r);
    if (!page) return error_response(page.error());
    auto view = engine.view(*id);
    if (!view) return error_response(view.error());
    auto events = engine.timeline(*id, *page);
    if (!events) return error_response(events.error());
    json::array attempts;
    for (const auto& s : view->sessions) {
      auto session = events::session_json(s, view->attempts);
      for (auto& a : session.at("attempts").as_array()) attempts.push_back(a);
    }
    json::array out;
    for (const auto& e : *events) out.push_back(events::timeline_event_json(e));
    std::int64_t last = events->empty() ? page->after : events->back().cursor;
    return json_response(200, json::object{{"runId", *id},
                                           {"attempts", std::move(attempts)},
                                           {"events", std::move(out)},
                                           {"lastCursor", last}});
  });
}

}  // namespace agentry::api
