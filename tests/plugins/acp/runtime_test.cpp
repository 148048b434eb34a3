// The backend runtime of plugins/common with real children: lines in order, exit statuses
// through the pidfd, stdin written and closed, SIGTERM then SIGKILL after the grace, and
// JSON-RPC requests, answers and notifications across a real pipe.
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "agentry/plugin_common/runtime/child.hpp"
#include "agentry/plugin_common/runtime/executor.hpp"
#include "agentry/plugin_common/runtime/json_rpc.hpp"

namespace agentry::plugin_common::runtime {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

struct Outcome {
  std::vector<std::string> lines;
  WaitStatus status;
};

ChildSpec shell(const std::string& script) { return ChildSpec{"/bin/sh", {"sh", "-c", script}, {"PATH=/usr/bin:/bin"}, ""}; }

// Runs `spec` on `executor`, `then` acting on the child once it started; the outcome once it exited.
// `on_line` acts on the child as each line arrives.
Outcome run(Executor& executor, ChildSpec spec, std::function<void(Child&)> then = {},
            std::function<void(Child&)> on_line = {}, std::chrono::seconds limit = 20s) {
  auto result = std::make_shared<std::promise<Outcome>>();
  auto outcome = std::make_shared<Outcome>();
  executor.post([&executor, spec = std::move(spec), then, on_line, result, outcome]() mutable {
    auto weak = std::make_shared<std::weak_ptr<Child>>();
    ChildHandlers handlers;
    handlers.stdout_line = [outcome, on_line, weak](Line line) {
      outcome->lines.push_back(line.text);
      if (auto child = weak->lock(); child && on_line) on_line(*child);
    };
    handlers.exited = [outcome, result](WaitStatus status) {
      outcome->status = status;
      result->set_value(*outcome);
    };
    auto child = Child::spawn(executor.get_executor(), std::move(spec), std::move(handlers));
    *weak = child;
    if (then) then(*child);
  });
  auto future = result->get_future();
  EXPECT_EQ(future.wait_for(limit), std::future_status::ready);
  return future.get();
}

TEST(BackendRuntime, LinesArriveInOrderAndTheExitCodeAfterThem) {
  Executor executor;
  const Outcome out = run(executor, shell("printf 'a\\nb\\nno newline'; exit 7"));
  EXPECT_EQ(out.lines, (std::vector<std::string>{"a", "b", "no newline"}));
  EXPECT_EQ(out.status.exit_code, 7);
}

TEST(BackendRuntime, StdinIsWrittenInOrderAndClosingItEndsTheChild) {
  Executor executor;
  const Outcome out = run(executor, shell("cat; echo eof"), [](Child& child) {
    EXPECT_TRUE(child.write("one\n"));
    EXPECT_TRUE(child.write("two\n"));
    child.close_stdin();
    EXPECT_FALSE(child.write("three\n")) << "nothing is written after the close";
  });
  EXPECT_EQ(out.lines, (std::vector<std::string>{"one", "two", "eof"}));
  EXPECT_EQ(out.status.exit_code, 0);
}

TEST(BackendRuntime, TerminateEscalatesToSigkillForAChildThatIgnoresSigterm) {
  Executor executor;
  const auto started = std::chrono::steady_clock::now();
  const Outcome out = run(executor, shell("trap '' TERM; echo ready; while :; do sleep 0.1; done"),
                          {}, [](Child& child) { child.terminate(300ms); });
  EXPECT_EQ(out.status.signal, 9);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
}

TEST(BackendRuntime, AGrandchildHoldingStdoutDoesNotHoldTheExit) {
  Executor executor;
  const auto started = std::chrono::steady_clock::now();
  // The grandchild stays in the group, so the leader's exit takes it down too.
  const Outcome out = run(executor, shell("sleep 30 & echo leader; exit 0"));
  EXPECT_EQ(out.status.exit_code, 0);
  EXPECT_EQ(out.lines, std::vector<std::string>{"leader"});
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
}

TEST(BackendRuntime, SpawningAMissingProgramThrowsTheErrno) {
  Executor executor;
  std::promise<int> code;
  executor.post([&] {
    try {
      Child::spawn(executor.get_executor(), ChildSpec{"/nonexistent/x", {"x"}, {}, ""}, {});
      code.set_value(0);
    } catch (const std::system_error& e) {
      code.set_value(e.code().value());
    }
  });
  EXPECT_EQ(code.get_future().get(), ENOENT);
}

TEST(JsonRpcPeer, RequestsMatchTheirAnswersAndTheOtherSidesRequestsAreAnswered) {
  std::vector<std::string> sent;
  JsonRpcPeer peer([&](std::string line) { sent.push_back(std::move(line)); });
  std::string seen;
  peer.request("a", json::object{}, [&](const json::value* result, const RpcError*) { seen += "a=" + json::serialize(*result) + ";"; });
  peer.request("b", json::object{}, [&](const json::value*, const RpcError* error) { seen += "b!" + error->message + ";"; });
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0], R"({"jsonrpc":"2.0","id":1,"method":"a","params":{}})" "\n");
  peer.receive(R"({"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}})");
  peer.receive(R"({"jsonrpc":"2.0","id":1,"result":{"x":1}})");
  EXPECT_EQ(seen, R"(b!no;a={"x":1};)");
  EXPECT_EQ(peer.pending(), 0u);

  std::string noise;
  peer.on_noise([&](std::string_view line, std::string_view why) { noise += std::string(line) + ":" + std::string(why) + ";"; });
  peer.receive("Loading...");
  peer.receive(R"({"jsonrpc":"2.0","id":99,"result":null})");
  EXPECT_EQ(noise, "Loading...:not a JSON object;{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":null}:an answer to no request of ours;");

  // A request without a handler is answered "method not found"; with one, by the handler.
  sent.clear();
  peer.receive(R"({"jsonrpc":"2.0","id":"q","method":"fs/read_text_file","params":{}})");
  EXPECT_EQ(sent.at(0), R"({"jsonrpc":"2.0","id":"q","error":{"code":-32601,"message":"method not found"}})" "\n");
  peer.on_request([&](const json::value& id, std::string_view method, const json::value&) {
    peer.respond(id, json::object{{"method", method}});
  });
  peer.receive(R"({"jsonrpc":"2.0","id":5,"method":"ping"})");
  EXPECT_EQ(sent.at(1), R"({"jsonrpc":"2.0","id":5,"result":{"method":"ping"}})" "\n");

  std::string gone;
  peer.request("c", json::object{}, [&](const json::value*, const RpcError* error) { gone = error->message; });
  peer.fail_pending(RpcError{RpcError::kPeerGone, "gone", {}});
  EXPECT_EQ(gone, "gone");
}

}  // namespace
}  // namespace agentry::plugin_common::runtime
