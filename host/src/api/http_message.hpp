#pragma once
// Transport-neutral HTTP request/response values. Route handlers work on these, so
// only the server's files (http_server_impl.hpp) ever instantiate Beast.

#include "core/error.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace agentry::api {

struct HttpRequest {
  std::string method;  // upper case: GET, POST, ...
  std::string target;  // as received, with the query string
  std::string path;    // without the query, still percent-encoded: the router decodes per segment
  std::map<std::string, std::string> query;    // decoded; a repeated key keeps the last value
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  /// Set instead of `body` for routes whose bodies the server spools to a file
  /// (HttpServer::set_upload_spool): the handler takes it over (moves or removes it).
  std::filesystem::path body_file{};
  std::map<std::string, std::string> params;  // filled by the router from ":name" segments
  /// Set when the caller holds a per-run token: the one run it may act on (api/run_scope.hpp).
  std::string scope_run_id{};

  const std::string* header(const std::string& lower_name) const;
  const std::string* query_param(const std::string& name) const;
};

class EventStream;

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  /// When set, the response is a Server-Sent Events stream fed from this source.
  std::shared_ptr<EventStream> stream;
  /// When set, the body is this file's content, sent from disk (downloads): `body` is unused.
  std::filesystem::path file{};
  /// When set, the response is what this returns, called on the server's blocking pool
  /// (OperationResult::blocking): the request worker is released meanwhile.
  std::function<HttpResponse()> blocking{};
  /// When set, the response waits on a write (OperationResult::after_write): the server
  /// calls it with where the response goes, from the worker that routed the request,
  /// and builds the response with what it is handed, on the connection's own thread.
  std::function<void(std::function<void(std::function<HttpResponse()>)>)> after_write{};
  /// The class of the route that answered (request_metrics.hpp); empty when none did.
  std::string route_class{};
};

HttpResponse json_response(int status, const boost::json::value& body);
/// The error envelope: {"error": {"code", "message", "details"}} with the code's status.
HttpResponse error_response(const core::Error& error);
HttpResponse error_response(core::ErrorCode code, std::string message, boost::json::object details = {});

/// Splits "a/b%20c?x=1&y" into a decoded path and query map; false when the
/// percent-encoding is malformed.
bool parse_target(const std::string& target, std::string& path, std::map<std::string, std::string>& query);
std::string percent_decode(std::string_view text, bool plus_is_space, bool& ok);

}  // namespace agentry::api
