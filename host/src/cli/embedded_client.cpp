#include "cli/embedded_client.hpp"

#include "api/run_streams.hpp"
#include "cli/stream_pump.hpp"
#include "core/clock.hpp"
#include "core/ids.hpp"
#include "core/process_identity.hpp"

#include <unistd.h>

namespace agentry::cli {

core::Result<std::unique_ptr<EmbeddedClient>> EmbeddedClient::open(const Paths& paths) {
  const long pid = static_cast<long>(::getpid());
  auto stack = LocalStack::open(paths, api::DaemonInfo{core::new_cli_instance_id(pid, core::process_start_time(pid)), pid,
                                                       "", AGENTRY_VERSION, core::now_iso8601()});
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
  auto result = stack_->operations().call(method, request);
  if (!result) return result.failure();
  return std::move(result->body);
}

core::Result<std::string> EmbeddedClient::subscribe(const SubscribeRequest& request, StreamHandlers handlers) {
  auto& engine = stack_->engine();
  const bool summary = request.channel == "run_summary";
  std::string run_id = request.run_id.value_or("");
  if (summary && request.run_id)
    return core::fail(core::ErrorCode::invalid_request, "run_summary covers every run; leave runId out");
  if (!summary) {
    if (!core::is_valid_run_id(run_id))
      return core::fail(core::ErrorCode::invalid_request, "'" + run_id + "' is not a valid run id", {{"field", "runId"}});
    if (auto view = engine.view(run_id); !view) return view.failure();
  }
  const std::int64_t after = request.after.value_or(0);
  std::shared_ptr<api::EventStream> source;
  if (summary) source = api::make_summary_stream(engine);
  else if (request.channel == "run_detail") source = api::make_detail_stream(engine, run_id);
  else if (request.channel == "run_timeline") source = api::make_timeline_stream(engine, run_id, after);
  else if (request.channel == "run_audit") source = api::make_audit_stream(engine, run_id, after);
  else
    return core::fail(core::ErrorCode::invalid_request,
                      "channel must be run_summary, run_detail, run_timeline or run_audit", {{"field", "channel"}});
  std::lock_guard lock(mutex_);
  std::string id = "sub_" + std::to_string(next_subscription_++);
  pumps_[id] = std::make_unique<StreamPump>(std::move(source), id, run_id, std::move(handlers), poll_interval);
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

std::string EmbeddedClient::describe() const { return "embedded (" + stack_->database().path().string() + ")"; }

}  // namespace agentry::cli
