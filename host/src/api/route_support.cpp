#include "api/route_support.hpp"

#include "core/ids.hpp"
#include "events/projections.hpp"

namespace agentry::api {

core::Result<std::string> run_id_param(const HttpRequest& request) {
  const auto& id = request.params.at("runId");
  if (!core::is_valid_run_id(id))
    return core::fail(core::ErrorCode::invalid_request,
                      "'" + id + "' is not a valid run id (1-64 characters of letters, digits, _ and -)",
                      {{"field", "runId"}});
  return id;
}

HttpResponse run_detail_response(engine::Engine& engine, const std::string& run_id, int status) {
  auto view = engine.view(run_id);
  if (!view) return error_response(view.error());
  return json_response(status, boost::json::object{{"run", events::run_detail({view->run, view->tasks, view->sessions,
                                                                               view->attempts})}});
}

core::Result<JsonBody> parse_body(const HttpRequest& request, std::initializer_list<std::string_view> allowed) {
  auto body = JsonBody::parse(request.body);
  if (!body) return body.failure();
  if (auto ok = body->allow_only(allowed); !ok) return ok.failure();
  return body;
}

core::Result<void> allow_query(const HttpRequest& request, std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : request.query) {
    bool known = false;
    for (auto a : allowed) known = known || a == key;
    if (!known) {
      boost::json::array names;
      for (auto a : allowed) names.emplace_back(a);
      return core::fail(core::ErrorCode::invalid_request, "unknown query parameter '" + key + "'",
                        {{"parameter", key}, {"allowed", std::move(names)}});
    }
  }
  return core::ok();
}

}  // namespace agentry::api
