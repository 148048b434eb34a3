// One call of the configured model API: the adapter builds the request, the runtime's HTTP
// client carries it, and every way it can fail becomes a ModelReply::error that names the
// cause (the HTTP status and an excerpt of the body, the deadline, an unreachable endpoint).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/any_io_executor.hpp>

#include <memory>
#include <string>
#include <vector>

#include "agentry/plugin_common/runtime/http.hpp"
#include "browser/conversation.hpp"
#include "browser/model_api.hpp"
#include "browser/model_settings.hpp"

namespace agentry::browser {

// The POST for `conversation` with `system` as the instructions and `tools` offered.
plugin_common::runtime::HttpRequest model_request(const ModelSettings& settings, const std::string& system,
                                                  const Conversation& conversation, const std::vector<ToolSpec>& tools);

// What the API's answer to `request` means.
ModelReply model_reply(const ModelSettings& settings, const plugin_common::runtime::HttpRequest& request,
                       plugin_common::runtime::HttpResponse response);

// [executor] The whole call; `call` holds it while it runs, so an interrupt can cancel it.
boost::asio::awaitable<ModelReply> call_model(const boost::asio::any_io_executor& io, const ModelSettings& settings,
                                              const std::string& system, const Conversation& conversation,
                                              const std::vector<ToolSpec>& tools,
                                              std::shared_ptr<plugin_common::runtime::HttpCall>& call);

}  // namespace agentry::browser
