#include "fake_client.hpp"

#include <sstream>

namespace agentry::cli::testing {
namespace json = boost::json;

namespace {

class FakeClient final : public Client {
 public:
  FakeClient(std::shared_ptr<FakeState> state, bool connected) : state_(std::move(state)), connected_(connected) {}

  core::Result<json::value> call(const std::string& method, json::object params) override {
    state_->calls.push_back({method, params});
    auto it = state_->answers.find(method);
    if (it == state_->answers.end())
      return core::fail(core::ErrorCode::not_found, "no answer scripted for " + method);
    return it->second(params);
  }

  core::Result<std::string> subscribe(const SubscribeRequest& request, StreamHandlers handlers) override {
    state_->subscriptions.push_back(request);
    for (const auto& e : state_->streams[request.channel]) handlers.on_event(e);
    return "sub_" + std::to_string(state_->subscriptions.size());
  }

  void unsubscribe(const std::string&) override { ++state_->unsubscribed; }
  bool drives_runs() const override { return !connected_; }
  std::string describe() const override { return "fake"; }

 private:
  std::shared_ptr<FakeState> state_;
  bool connected_;
};

}  // namespace

void FakeState::answer(const std::string& method, json::value result) {
  answers[method] = [result](const json::object&) -> core::Result<json::value> { return result; };
}

std::vector<json::object> FakeState::calls_to(const std::string& method) const {
  std::vector<json::object> out;
  for (const auto& c : calls)
    if (c.method == method) out.push_back(c.params);
  return out;
}

ClientFactory fake_factory(std::shared_ptr<FakeState> state) {
  return [state](const GlobalOptions& global, const Environment& env) -> core::Result<std::unique_ptr<Client>> {
    ++state->opened;
    return std::unique_ptr<Client>(new FakeClient(state, !connect_url(global, env).empty()));
  };
}

CliResult run_cli_with(const std::vector<std::string>& args, std::shared_ptr<FakeState> state, Environment env) {
  if (env.cwd.empty()) env.cwd = "/work/project";
  std::ostringstream out;
  std::ostringstream err;
  CliResult r;
  r.code = run_cli(args, std::move(env), out, err, fake_factory(std::move(state)));
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace agentry::cli::testing
