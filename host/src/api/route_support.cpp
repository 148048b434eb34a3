#include "api/route_support.hpp"

#include "core/ids.hpp"

namespace agentry::api {

core::Result<std::string> run_id_param(const HttpRequest& request) {
  const auto& id = request.params.at("runId");
  if (!core::is_valid_run_id(id))
    return core::fail(core::ErrorCode::invalid_request,
                      "'" + id + "' is not a valid run id (1-64 characters of letters, digits, _ and -)",
                      {{"field", "runId"}});
  return id;
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

HttpResponse event_stream_response(core::Result<std::shared_ptr<EventStream>> stream) {
  if (!stream) return error_response(stream.error());
  HttpResponse r;
  r.content_type = "text/event-stream";
  r.headers.emplace_back("Cache-Control", "no-cache");
  r.stream = std::move(*stream);
  return r;
}

}  // namespace agentry::api
