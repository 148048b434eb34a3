#pragma once
// A Client for command tests: records every call, answers from a script, and delivers
// scripted stream events when a subscription starts.

#include "cli/app.hpp"
#include "cli/client.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace agentry::cli::testing {

struct FakeState {
  struct Call {
    std::string method;
    boost::json::object params;
  };
  std::vector<Call> calls;
  /// method -> answer; unscripted methods fail with NOT_FOUND.
  std::map<std::string, std::function<core::Result<boost::json::value>(const boost::json::object&)>> answers;
  /// channel -> events delivered (synchronously) when it is subscribed.
  std::map<std::string, std::vector<StreamEvent>> streams;
  std::vector<SubscribeRequest> subscriptions;
  int unsubscribed = 0;
  int opened = 0;

  /// Answers `method` with `result` every time.
  void answer(const std::string& method, boost::json::value result);
  /// The calls to `method`, in order.
  std::vector<boost::json::object> calls_to(const std::string& method) const;
};

/// A factory that opens FakeClients over `state`; they drive runs unless `connected`.
ClientFactory fake_factory(std::shared_ptr<FakeState> state);

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

/// The CLI on `args` with `env` (cwd /work/project unless set) and fake clients.
CliResult run_cli_with(const std::vector<std::string>& args, std::shared_ptr<FakeState> state, Environment env = {});

}  // namespace agentry::cli::testing
