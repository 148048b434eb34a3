#pragma once
// Helpers shared by route handlers: the run id parameter, the standard run
// responses, and turning a failed Result into the error envelope.

#include "api/http_message.hpp"
#include "api/json_body.hpp"
#include "engine/engine.hpp"

#include <string>

namespace agentry::api {

inline const engine::Actor http_actor{"api"};

/// The ":runId" parameter, or a 400 when it is not a well-formed run id.
core::Result<std::string> run_id_param(const HttpRequest& request);

/// 200 {"run": RunDetail}, read after the mutation committed.
HttpResponse run_detail_response(engine::Engine& engine, const std::string& run_id, int status = 200);

/// Parses the body and rejects keys outside `allowed`.
core::Result<JsonBody> parse_body(const HttpRequest& request, std::initializer_list<std::string_view> allowed);

/// INVALID_REQUEST naming the first query parameter outside `allowed`.
core::Result<void> allow_query(const HttpRequest& request, std::initializer_list<std::string_view> allowed);

}  // namespace agentry::api
