#include "cli/command_context.hpp"

#include "cli/connected_client.hpp"
#include "cli/embedded_client.hpp"
#include "cli/exit_codes.hpp"
#include "cli/paths.hpp"

#include <boost/json/serialize.hpp>

#include <ostream>

namespace agentry::cli {
namespace json = boost::json;

std::string connect_url(const GlobalOptions& global, const Environment& env) {
  return global.connect.empty() ? env.get(env_connect) : global.connect;
}

core::Result<std::unique_ptr<Client>> open_client(const GlobalOptions& global, const Environment& env) {
  if (auto url = connect_url(global, env); !url.empty()) {
    ConnectOptions options;
    options.url = url;
    options.token = global.settings.daemon_token;
    options.connect_timeout = global.settings.connect_timeout;
    options.call_timeout = global.settings.call_timeout;
    auto client = ConnectedClient::connect(options);
    if (!client) return client.failure();
    return std::unique_ptr<Client>(std::move(*client));
  }
  auto paths = resolve_paths(global.settings);
  if (!paths) return paths.failure();
  auto client = EmbeddedClient::open(*paths, global.settings);
  if (!client) return client.failure();
  return std::unique_ptr<Client>(std::move(*client));
}

CommandContext::CommandContext(GlobalOptions global, Environment env, std::ostream& out, std::ostream& err,
                               ClientFactory factory)
    : global_(std::move(global)), env_(std::move(env)), out_(out), err_(err), factory_(std::move(factory)) {}

CommandContext::~CommandContext() = default;

core::Result<Client*> CommandContext::client() {
  if (!client_) {
    auto opened = factory_(global_, env_);
    if (!opened) return opened.failure();
    client_ = std::move(*opened);
  }
  return client_.get();
}

core::Result<json::value> CommandContext::call(const std::string& method, json::object params) {
  auto c = client();
  if (!c) return c.failure();
  return (*c)->call(method, std::move(params));
}

int CommandContext::report(const core::Error& error) {
  err_ << "agentry: " << error.message << "\n";
  for (const auto& [key, value] : error.details) {
    if (key == "runId" || key == "operation") continue;  // already in the message
    err_ << "  " << std::string(key) << ": "
         << (value.is_string() ? std::string(value.as_string()) : json::serialize(value)) << "\n";
  }
  err_.flush();
  return exit_code::for_error(error);
}

int CommandContext::usage_error(const std::string& message) {
  err_ << "agentry: " << message << "\n";
  err_.flush();
  return exit_code::config_error;
}

int CommandContext::print(const json::value& result, const std::function<std::string(const json::value&)>& human) {
  if (global_.json) out_ << json::serialize(result) << "\n";
  else out_ << human(result);
  out_.flush();
  return exit_code::success;
}

}  // namespace agentry::cli
