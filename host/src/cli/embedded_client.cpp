#include "cli/embedded_client.hpp"

#include "api/run_streams.hpp"
#include "cli/stream_pump.hpp"
#include "core/clock.hpp"
#include "core/ids.hpp"
#include "core/process_identity.hpp"

#include <unistd.h>

namespace agentry::cli {

core::Result<std::unique_ptr<EmbeddedClient>> EmbeddedClient::open(const Paths& paths, const core::Settings& settings) {
  const long pid = static_cast<long>(::getpid());
  auto stack = LocalStack::open(paths, settings,
                                api::DaemonInfo{core::new_cli_instance_id(pid, core::process_start_time(pid)), pid, "",
                                                AGENTRY_VERSION, core::now_iso8601()});
  if (!stack) return stack.failure();
  return std::unique_ptr<EmbeddedClient>(new EmbeddedClient(std::move(*stack)));
}

EmbeddedClient::EmbeddedClient(std::unique_ptr<LocalStack> stack) : stack_(std::move(stack)) {}

EmbeddedClient::~EmbeddedClient() {
  std::map<std::string, std::unique_ptr<StreamPump>> pumps;
  {
    std::lock_guard lock(mutex_);
    pumps.swap(pumps_);
  }
  pumps.clear();  // before the engine the streams read from
  stack_.reset();
}

core::Result<boost::json::value> EmbeddedClient::call(const std::string& method, boost::json::object params) {
  api::OperationRequest request{std::move(params), engine::Actor{"cli"}, engine::VarOrigin::cli, {}};
  auto result = api::finish(stack_->operations().call(method, request));
  if (!result) return result.failure();
  return std::move(result->body);
}

core::Result<std::string> EmbeddedClient::subscribe(const SubscribeRequest& request, StreamHandlers handlers) {
  std::string run_id = request.run_id.value_or("");
  auto source = api::open_stream(stack_->engine(), {request.channel, run_id, request.after.value_or(0)});
  if (!source) return source.failure();
  std::lock_guard lock(mutex_);
  std::string id = "sub_" + std::to_string(next_subscription_++);
  pumps_[id] = std::make_unique<StreamPump>(std::move(*source), id, run_id, std::move(handlers), poll_interval);
  return id;
}

void EmbeddedClient::unsubscribe(const std::string& subscription_id) {
  std::unique_ptr<StreamPump> pump;
  {
    std::lock_guard lock(mutex_);
    auto it = pumps_.find(subscription_id);
    if (it == pumps_.end()) return;
    pump = std::move(it->second);
    pumps_.erase(it);
  }
  pump.reset();  // joins outside the lock
}

std::string EmbeddedClient::describe() const { return "embedded (" + stack_->database().describe() + ")"; }

}  // namespace agentry::cli
