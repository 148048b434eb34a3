// Bad input gets the error envelope with the right status, and changes nothing.
#include "daemon_fixture.hpp"

#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;

struct BadRequest {
  const char* what;
  std::string method;
  std::string target;  // "{id}" is replaced with a real run id
  std::string body;
  int status;
  const char* code;
};

TEST_F(DaemonTest, BadRequestsGetTheEnvelopeAndChangeNothing) {
  auto id = create_run();
  auto running = create_run("other", true);
  auto before = get_run(id);
  auto before_running = get_run(running);

  std::vector<BadRequest> cases = {
      {"malformed JSON", "POST", "/api/runs/init", "{\"agent\":", 400, "INVALID_REQUEST"},
      {"non-object body", "POST", "/api/runs/init", "[1,2]", 400, "INVALID_REQUEST"},
      {"empty create body", "POST", "/api/runs", "", 400, "INVALID_REQUEST"},
      {"unknown key", "POST", "/api/runs/init", R"({"agent":"worker","colour":"red"})", 400, "INVALID_REQUEST"},
      {"wrong type", "POST", "/api/runs/{id}/pinned", R"({"pinned":"yes"})", 400, "INVALID_REQUEST"},
      {"missing field", "POST", "/api/runs/{id}/pinned", "{}", 400, "INVALID_REQUEST"},
      {"unknown key on transition", "POST", "/api/runs/{id}/ready", R"({"now":true})", 400, "INVALID_REQUEST"},
      {"null message on reconfigure", "POST", "/api/runs/{id}/reconfigure", R"({"message":null})", 400,
       "INVALID_REQUEST"},
      {"bad task status", "PATCH", "/api/runs/{id}/tasks/plan", R"({"status":"done"})", 400, "INVALID_REQUEST"},
      {"malformed run id", "GET", "/api/runs/bad%20id", "", 400, "INVALID_REQUEST"},
      {"unknown query parameter", "GET", "/api/runs?global=true&sort=name", "", 400, "INVALID_REQUEST"},
      {"conflicting list scopes", "GET", "/api/runs?global=true&cwd=%2ftmp", "", 400, "INVALID_REQUEST"},
      {"bad limit", "GET", "/api/runs?global=true&limit=9999", "", 400, "INVALID_REQUEST"},
      {"unknown run", "POST", "/api/runs/zzzzzzzzzz/archive", "", 404, "NOT_FOUND"},
      {"unknown task", "GET", "/api/runs/{id}/tasks/nope", "", 404, "NOT_FOUND"},
      {"unknown route", "GET", "/api/nothing-here", "", 404, "NOT_FOUND"},
      {"wrong method", "PUT", "/api/runs/{id}", "{}", 405, "METHOD_NOT_ALLOWED"},
      {"illegal transition", "POST", "/api/runs/{id}/abort", "", 422, "CONFLICT"},
      {"delete unarchived", "DELETE", "/api/runs/{id}", "", 422, "CONFLICT"},
      {"unknown agent", "POST", "/api/runs/init", R"({"agent":"ghost","overrides":{"message":"x"},"callerCwd":"/"})",
       404, "NOT_FOUND"},
      {"missing required var", "POST", "/api/runs/init",
       R"({"agent":"worker","assignment":"feature","callerCwd":"/tmp"})", 422, "VALIDATION_FAILED"},
      {"broken definition", "POST", "/api/runs/init", R"({"agent":"broken","overrides":{"message":"x"},"callerCwd":"/"})",
       422, "VALIDATION_FAILED"},
      {"vars of the wrong shape", "POST", "/api/runs/{id}/reconfigure", R"({"vars":{"feature":42}})", 422,
       "VALIDATION_FAILED"},
  };
  for (const auto& c : cases) {
    std::string target = c.target;
    if (auto at = target.find("{id}"); at != std::string::npos) target.replace(at, 4, id);
    auto response = client().request(c.method, target, c.body);
    EXPECT_EQ(response.status, c.status) << c.what << ": " << response.body;
    EXPECT_EQ(error_code_of(response), c.code) << c.what;
  }
  // Changing a running run's vars is a conflict, not a validation error.
  auto late = client().post_json("/api/runs/" + running + "/reconfigure", json::object{{"message", "x"}});
  EXPECT_EQ(late.status, 422);

  auto after = get_run(id);
  EXPECT_EQ(after.at("revision"), before.at("revision"));
  EXPECT_EQ(after.at("updatedAt"), before.at("updatedAt"));
  EXPECT_EQ(get_run(running).at("revision"), before_running.at("revision"));
  EXPECT_EQ(all_run_ids().size(), 2u);
}

TEST_F(DaemonTest, OversizedBodiesAndHeadersAreRefused) {
  std::string huge(2 * 1024 * 1024, 'x');
  auto body = client().post("/api/runs/init", "{\"agent\":\"" + huge + "\"}");
  EXPECT_EQ(body.status, 413);
  EXPECT_EQ(error_code_of(body), "PAYLOAD_TOO_LARGE");

  std::string raw = "GET /api/daemon HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(64 * 1024, 'a') + "\r\n\r\n";
  auto answer = client().raw_exchange(raw);
  EXPECT_EQ(answer.rfind("HTTP/1.1 431", 0), 0u) << answer.substr(0, 200);
  EXPECT_TRUE(all_run_ids().empty());
}

TEST_F(DaemonTest, GarbageOnTheWireIsA400AndTheDaemonKeepsServing) {
  auto answer = client().raw_exchange("NOT HTTP AT ALL\r\n\r\n");
  EXPECT_EQ(answer.rfind("HTTP/1.1 400", 0), 0u) << answer;
  EXPECT_EQ(client().get("/api/daemon").status, 200);
}

TEST_F(DaemonTest, SlowClientsAreCutOffByTheReadTimeout) {
  start_daemon({{"AGENTRY_HTTP_READ_TIMEOUT_MS", "300"}});
  test::HttpClient::RawOptions options;
  options.throw_on_timeout = true;
  auto started = std::chrono::steady_clock::now();
  // Half a request, then silence: the daemon must close the connection on its own.
  auto answer = client().raw_exchange("GET /api/daemon HTTP/1.1\r\nHost: x\r\n", options);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(8));
  EXPECT_EQ(answer.find("200 OK"), std::string::npos);
  EXPECT_EQ(client().get("/api/daemon").status, 200);
}

TEST_F(DaemonTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  std::string two = "GET /api/daemon HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /app-config.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  auto answer = client().raw_exchange(two);
  EXPECT_NE(answer.find("daemonInstanceId"), std::string::npos);
  EXPECT_NE(answer.find("webBasePath"), std::string::npos);
}

}  // namespace
}  // namespace agentry::integration
