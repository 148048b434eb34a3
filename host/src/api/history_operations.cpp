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
  core::EventPageQuery query;
};

Result<PageRequest> page_of(const OperationRequest& request) {
  auto params = params_of(request, {"runId", "after", "before", "limit"});
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
  // `before`: the newest page below a cursor ("latest": of the whole history).
  auto before = text_param(*params, "before");
  if (!before) return before.failure();
  if (*before && **before != "latest") {
    std::int64_t cursor = 0;
    if (auto ok = number("before", 1, INT64_MAX, cursor); !ok) return ok.failure();
    page.query.upto = cursor - 1;
  }
  page.query.newest = before->has_value();
  return page;
}

/// The cursor of the first event of the page, null when it is empty.
template <typename Event>
json::value first_cursor(const std::vector<Event>& events) {
  return events.empty() ? json::value(nullptr) : json::value(events.front().cursor);
}

/// The cursor of the last event of the page; when it is empty, where the page started.
template <typename Event>
std::int64_t last_cursor(const std::vector<Event>& events, const core::EventPageQuery& q) {
  return events.empty() ? q.after : events.back().cursor;
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
    return OperationResult{json::object{{"runId", page->run_id}, {"events", std::move(out)},
                                        {"firstCursor", first_cursor(*events)},
                                        {"lastCursor", last_cursor(*events, page->query)}}};
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
    return OperationResult{json::object{{"runId", page->run_id},
                                        {"attempts", std::move(attempts)},
                                        {"events", std::move(out)},
                                        {"firstCursor", first_cursor(*events)},
                                        {"lastCursor", last_cursor(*events, page->query)}}};
  });
}

}  // namespace agentry::api
