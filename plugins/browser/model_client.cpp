#include "browser/model_client.hpp"

#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>

#include "agentry/plugin/cpp/json.hpp"
#include "agentry/plugin_common/json_fields.hpp"

namespace agentry::browser {
namespace json = boost::json;
using plugin_common::text_field;
using plugin_common::object_field;
namespace rt = plugin_common::runtime;

namespace {

constexpr std::size_t kExcerpt = 300;

// The API's own error message when the body is {"error": {"message"}}, else the body's start.
std::string excerpt_of(const std::string& body) {
  json::error_code ec;
  const json::value root = json::parse(body, ec);
  if (!ec) {
    const std::string message = text_field(object_field(root.if_object(), "error"), "message");
    if (!message.empty()) return plugin::sanitize_utf8(message.substr(0, kExcerpt));
  }
  std::string text = plugin::sanitize_utf8(body.substr(0, kExcerpt));
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return body.size() > kExcerpt ? text + "..." : text;
}

}  // namespace

json::object Usage::to_event() const {
  json::object o;
  if (input) o["inputTokens"] = *input;
  if (output) o["outputTokens"] = *output;
  if (cached_input) o["cachedInputTokens"] = *cached_input;
  if (reasoning) o["reasoningTokens"] = *reasoning;
  return o;
}

rt::HttpRequest model_request(const ModelSettings& settings, const std::string& system, const Conversation& conversation,
                              const std::vector<ToolSpec>& tools) {
  const bool openai = settings.api == ModelApi::openai_responses;
  WireRequest wire = openai ? openai_request(settings, system, conversation, tools)
                            : anthropic_request(settings, system, conversation, tools);
  rt::HttpRequest request;
  request.url = settings.base_url + wire.path;
  request.headers = std::move(wire.headers);
  request.body = std::move(wire.body);
  request.user_agent = "agentry-browser";
  request.timeout = settings.request_timeout;
  return request;
}

ModelReply model_reply(const ModelSettings& settings, const rt::HttpRequest& request, rt::HttpResponse response) {
  const bool openai = settings.api == ModelApi::openai_responses;
  ModelReply reply;
  if (response.cancelled) {
    reply.cancelled = true;
    reply.error = "cancelled";
  } else if (response.timed_out) {
    reply.error = "the model API (" + request.url + ") did not answer within " +
                  std::to_string(settings.request_timeout.count()) + " ms (requestTimeoutMs)";
  } else if (response.status == 0) {
    reply.error = "cannot reach the model API at " + request.url + ": " + response.error;
  } else if (response.status < 200 || response.status > 299) {
    reply.error = "the model API answered HTTP " + std::to_string(response.status) + " (" + request.url + ")";
    if (auto text = excerpt_of(response.body); !text.empty()) reply.error += ": " + text;
  } else if (!response.error.empty()) {
    reply.error = "the model API's answer was incomplete: " + response.error;
  } else {
    json::error_code ec;
    const json::value answer = json::parse(response.body, ec);
    if (ec || !answer.is_object()) reply.error = "the answer is not a JSON object";
    else reply = openai ? openai_parse(answer.get_object()) : anthropic_parse(answer.get_object());
    if (!reply.error.empty()) reply.error = "unusable answer from the model API (" + request.url + "): " + reply.error;
  }
  return reply;
}

boost::asio::awaitable<ModelReply> call_model(const boost::asio::any_io_executor& io, const ModelSettings& settings,
                                              const std::string& system, const Conversation& conversation,
                                              const std::vector<ToolSpec>& tools, std::shared_ptr<rt::HttpCall>& call) {
  const rt::HttpRequest request = model_request(settings, system, conversation, tools);
  rt::HttpResponse response = co_await rt::async_http_post(io, request, call, boost::asio::use_awaitable);
  call.reset();
  co_return model_reply(settings, request, std::move(response));
}

}  // namespace agentry::browser
