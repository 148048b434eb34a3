// Load driver: run creation through the real daemon. N client threads, each with its own
// keep-alive HTTP connection over loopback, send POST /api/runs/init back to back; the
// daemon resolves the mock agent and an assignment with 3 tasks and a required var, and
// commits the run, its tasks and its audit record (synchronous=FULL) before it answers 201.
// items_per_second is runs created per second by all clients together; daemon_cpu_us is
// the CPU time (user + system, all threads) the daemon spent per run, which says more than
// the rate on a machine shared with other work.
// The daemon binary comes from $AGENTRY_BIN, else <this program>/../bin/agentry.

#include "daemon_binary.hpp"
#include "support/daemon_process.hpp"
#include "support/http_wire.hpp"
#include "support/socket_io.hpp"
#include "support/temp_dir.hpp"

#include <benchmark/benchmark.h>

#include <boost/json.hpp>

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace agentry::bench {
namespace {
namespace json = boost::json;


/// One daemon for every benchmark of this program; definitions as in run_init_benchmark.
struct Fixture {
  test::TempDir dir;
  std::unique_ptr<test::DaemonProcess> daemon;

  Fixture() {
    dir.write_file("config/agents/worker/agent.md",
                   "---\nschemaVersion: 1\nbackend: mock\n---\nYou are the worker.\n");
    dir.write_file("config/assignments/feature/assignment.md",
                   "---\nschemaVersion: 1\nmessage: \"Build {{feature}}.\"\nvars:\n  feature:\n    type: string\n"
                   "    required: true\ntasks:\n  - id: plan\n    title: Plan {{feature}}\n  - id: build\n"
                   "    title: Build it\n  - id: review\n    title: Review it\n---\nWork carefully in {{cwd}}.\n");
    std::filesystem::create_directories(dir.path() / "work");
    test::DaemonOptions options;
    options.home = dir.path() / "home";
    options.config_dir = dir.path() / "config";
    options.binary = daemon_binary();
    daemon = std::make_unique<test::DaemonProcess>(options);
    daemon->start();
  }
};

// Started from main(): the daemon dies with the thread that started it (PR_SET_PDEATHSIG),
// and Google Benchmark runs multi-threaded benchmarks on threads it creates and joins.
std::unique_ptr<Fixture> the_fixture;

Fixture& fixture() { return *the_fixture; }

/// One keep-alive HTTP/1.1 connection that sends a request and reads its response at a time.
class KeepAliveConnection {
 public:
  explicit KeepAliveConnection(std::uint16_t port) : port_(port) {
    fd_ = test::connect_tcp("127.0.0.1", port, test::Clock::now() + std::chrono::seconds(5));
    int one = 1;
    ::setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }

  /// Sends the POST and returns the status; the body goes to `body`.
  int post(const std::string& target, const std::string& payload, std::string& body) {
    const auto deadline = test::Clock::now() + std::chrono::seconds(10);
    std::string request = "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
                          "\r\nContent-Type: application/json\r\nContent-Length: " +
                          std::to_string(payload.size()) + "\r\n\r\n" + payload;
    if (test::send_all(fd_.get(), request, deadline) != test::SendResult::ok)
      throw std::runtime_error("the daemon closed the connection");
    std::string in;
    char buf[16384];
    std::optional<std::size_t> head_end;
    while (!(head_end = test::find_head_end(in))) in.append(buf, receive(buf, sizeof buf, deadline));
    auto head = test::parse_response_head(std::string_view(in).substr(0, *head_end));
    auto decoder = test::BodyDecoder::for_response(head, "POST");
    body.clear();
    decoder.feed(std::string_view(in).substr(*head_end), body);
    while (!decoder.done()) decoder.feed(std::string_view(buf, receive(buf, sizeof buf, deadline)), body);
    return head.status;
  }

 private:
  std::size_t receive(char* buf, std::size_t size, test::Clock::time_point deadline) {
    auto n = test::recv_some(fd_.get(), buf, size, deadline);
    if (!n) throw std::runtime_error("timed out waiting for the daemon");
    if (*n == 0) throw std::runtime_error("the daemon closed the connection");
    return *n;
  }

  std::uint16_t port_;
  test::UniqueFd fd_;
};

/// CPU time the process has used, user + system, all threads, in microseconds.
double cpu_us(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));  // after "pid (comm) "
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i)
    if (i >= 14) ticks += std::stod(field);  // utime, stime
  return ticks * 1e6 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

void BM_DaemonRunInit(benchmark::State& state) {
  auto& f = fixture();
  const std::string payload = json::serialize(json::object{
      {"agent", "worker"},
      {"assignment", "feature"},
      {"callerCwd", (f.dir.path() / "work").string()},
      {"cliVars", {{"feature", "dark mode"}}}});
  KeepAliveConnection connection(f.daemon->port());
  std::string body;
  const double cpu_before = state.thread_index() == 0 ? cpu_us(f.daemon->pid()) : 0;
  for (auto _ : state) {
    int status = connection.post("/api/runs/init", payload, body);
    if (status != 201) return state.SkipWithError(("HTTP " + std::to_string(status) + ": " + body).c_str());
  }
  state.SetItemsProcessed(state.iterations());
  // Every thread runs as many iterations, so thread 0's span covers the others'; the
  // counter is divided by the iterations of all threads.
  if (state.thread_index() == 0)
    state.counters["daemon_cpu_us"] =
        benchmark::Counter(cpu_us(f.daemon->pid()) - cpu_before, benchmark::Counter::kAvgIterations);
}

BENCHMARK(BM_DaemonRunInit)->Threads(1)->Threads(8)->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(3.0);

}  // namespace
}  // namespace agentry::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  agentry::bench::the_fixture = std::make_unique<agentry::bench::Fixture>();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  agentry::bench::the_fixture.reset();
  return 0;
}
