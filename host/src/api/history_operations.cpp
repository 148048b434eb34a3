// Operations reading a run's history: audit records and timeline events, paged by cursor.

#include "api/operations.hpp"
#include "events/projections.hpp"

#include <cstdlib>

namespace agentry::api {
namespace json = boost::json;
using core::Result;

namespace {

struct PageRequest {
  std::string run_id;
  store::EventPageQuery query;
};

Result<PageRequest> page_of(const OperationRequest& request) {
  auto params = params_of(request, {"runId", "after", "limit"});
  if (!params) return params.failure();
  auto id = run_id_of(*params);
  if (!id) return id.failure();
  PageRequest page{*id, {}};
  auto number = [&](const char* key, long long min, long long max, auto& out) -> Result<void> {
    auto text = text_param(*params, key);
    if (!text) return text.failure();
    if (!*text) return core::ok();
    char* end = nullptr;
    long long n = std::strtoll((*text)->c_str(), &end, 10);
    if ((*text)->empty() || *end != '\0' || n < min || n > max)
      return core::fail(core::ErrorCode::invalid_request,
                        std::string(key) + " must be an integer from " + std::to_string(min) + " to " +
                            std::to_string(max),
                        {{"parameter", key}});
    out = static_cast<std::remove_reference_t<decltype(out)>>(n);
    return core::ok();
  };
  if (auto ok = number("after", 0, INT64_MAX, page.query.after); !ok) return ok.failure();
  if (auto ok = number("limit", 1, 5000, page.query.limit); !ok) return ok.failure();
  return page;
}

}  // namespace

void add_history_operations(Operations& ops, ApiContext& ctx) {
  auto& engine = ctx.engine;
  ops.add("runs.auditHistory", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto page = page_of(r);
    if (!page) return page.failure();
    auto events = engine.audit(page->run_id, page->query);
    if (!events) return events.failure();
    json::array out;
    for (const auto& e : *events) out.push_back(events::audit_event_json(e));
    std::int64_t last = events->empty() ? page->query.after : events->back().cursor;
    return OperationResult{json::object{{"runId", page->run_id}, {"events", std::move(out)}, {"lastCursor", last}}};
  });
  ops.add("runs.timelineHistory", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto page = page_of(r);
    if (!page) return page.failure();
    auto view = engine.view(page->run_id);
    if (!view) return view.failure();
    auto events = engine.timeline(page->run_id, page->query);
    if (!events) return events.failure();
    json::array attempts;
    for (const auto& s : view->sessions) {
      auto session = events::session_json(s, view->attempts);
      for (auto& a : session.at("attempts").as_array()) attempts.push_back(a);
    }
    json::array out;
    for (const auto& e : *events) out.push_back(events::timeline_event_json(e));
    std::int64_t last = events->empty() ? page->query.after : events->back().cursor;
    return OperationResult{json::object{
        {"runId", page->run_id}, {"attempts", std::move(attempts)}, {"events", std::move(out)}, {"lastCursor", last}}};
  });
}

}  // namespace agentry::api
