// `agentry mcp`, the MCP server on stdio, driven as a client drives it: a child process
// with pipes, one JSON-RPC message per line each way. In both modes (embedded: the
// process drives the run itself; connected: the daemon does), a run started through the
// start_run tool appears and ends, and stdout carries nothing but protocol.
#include "cli_fixture.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using namespace std::chrono_literals;

/// A running `agentry mcp` with its stdin and stdout on pipes.
class StdioServer {
 public:
  StdioServer(const test::EnvOverrides& env, const std::filesystem::path& cwd, const std::filesystem::path& err) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    test::SpawnOptions options;
    options.argv = {test::DaemonProcess::binary_path().string(), "mcp"};
    options.env = test::environment_with(env);
    options.cwd = cwd;
    options.stdin_fd = in[0];
    options.stdout_fd = out[1];
    options.stderr_fd = err_fd;
    options.die_with_parent = true;
    pid_ = test::spawn_process(options);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err_fd);
    to_ = in[1];
    from_ = out[0];
  }
  ~StdioServer() {
    close_input();
    if (from_ >= 0) ::close(from_);
    if (pid_ > 0 && !test::wait_for_exit(pid_, 10s)) {
      ::kill(pid_, SIGKILL);
      (void)test::wait_for_exit(pid_, 5s);
    }
  }
  void send(const json::object& message) {
    const std::string line = json::serialize(message) + "\n";
    ASSERT_EQ(::write(to_, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  }
  /// The next line of stdout, parsed (every line must be a JSON-RPC message).
  json::object receive(std::chrono::milliseconds timeout = 30s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        const std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return json::parse(line).as_object();
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) throw std::runtime_error("no answer from agentry mcp; stdout so far: " + buffer_);
      pollfd p{from_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char chunk[65536];
      const ssize_t n = ::read(from_, chunk, sizeof chunk);
      if (n <= 0) throw std::runtime_error("agentry mcp closed its stdout; stdout so far: " + buffer_);
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  json::object request(const std::string& method, json::object params = {}) {
    send({{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", std::move(params)}});
    auto answer = receive();
    EXPECT_EQ(answer.at("id"), id_) << json::serialize(answer);
    return answer;
  }
  void close_input() {
    if (to_ >= 0) ::close(to_);
    to_ = -1;
  }
  std::optional<int> wait(std::chrono::milliseconds timeout) {
    auto code = test::wait_for_exit(pid_, timeout);
    if (code) pid_ = -1;
    return code;
  }
  /// Whatever stdout held after the last answer, read until it closed.
  std::string rest() {
    char chunk[4096];
    for (ssize_t n; (n = ::read(from_, chunk, sizeof chunk)) > 0;) buffer_.append(chunk, static_cast<std::size_t>(n));
    return buffer_;
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1;
  int from_ = -1;
  std::string buffer_;
  int id_ = 0;
};

class McpStdioTest : public CliTest {};

TEST_P(McpStdioTest, ARunStartedThroughTheStartToolAppearsAndEnds) {
  StdioServer server(cli_env(), work_, dir_.path() / "mcp.err");
  auto init = server.request("initialize", {{"protocolVersion", "2025-03-26"},
                                            {"capabilities", json::object{}},
                                            {"clientInfo", {{"name", "stdio-test"}, {"version", "1"}}}});
  EXPECT_EQ(init.at("result").at("protocolVersion"), "2025-03-26");
  server.send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  EXPECT_EQ(server.request("tools/list").at("result").at("tools").as_array().size(), 13u);

  auto started = server.request("tools/call", {{"name", "start_run"}, {"arguments", {{"agent", "talker"}, {"message", "go"}}}});
  const auto& result = started.at("result").as_object();
  ASSERT_EQ(result.at("isError"), false) << json::serialize(started);
  // 2025-03-26 has no structuredContent: the text is the JSON.
  const auto body = json::parse(result.at("content").at(0).at("text").as_string());
  const std::string run(body.at("run").at("runId").as_string());
  // Started where the server runs, as `agentry run` is.
  EXPECT_EQ(body.at("run").at("cwd"), work_.string().c_str());

  // Followed through the server itself until it ends.
  std::string status;
  for (auto deadline = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < deadline;) {
    auto shown = server.request("tools/call", {{"name", "show_run"}, {"arguments", {{"runId", run}}}});
    status = std::string(json::parse(shown.at("result").at("content").at(0).at("text").as_string())
                             .at("run").at("status").as_string());
    if (status != "running" && status != "ready" && status != "initialized") break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(status, "success");

  auto unknown = server.request("tools/call", {{"name", "rm_rf"}, {"arguments", json::object{}}});
  EXPECT_EQ(unknown.at("error").at("code"), -32602);
  EXPECT_EQ(unknown.at("error").at("data").at("tool"), "rm_rf");
  auto bad = server.request("tools/call", {{"name", "set_task"}, {"arguments", {{"runId", run}, {"taskId", "x"}, {"status", 3}}}});
  EXPECT_EQ(bad.at("error").at("data").at("field"), "status");

  server.close_input();
  EXPECT_EQ(server.wait(20s), std::optional<int>(0));
  EXPECT_EQ(server.rest(), "");  // nothing but answers on stdout
  EXPECT_EQ(api_run(run).at("status"), "success");
}

INSTANTIATE_TEST_SUITE_P(Modes, McpStdioTest, ::testing::Values(CliMode::embedded, CliMode::connected), mode_name);

}  // namespace
}  // namespace agentry::integration
