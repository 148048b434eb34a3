#include "api/router.hpp"

#include "api/server_errors.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace agentry::api {
namespace {

HttpRequest request(std::string method, std::string path) {
  HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  return r;
}

std::string error_code(const HttpResponse& r) {
  return std::string(boost::json::parse(r.body).at("error").at("code").as_string());
}

TEST(RouterTest, CapturesAndDecodesSegments) {
  Router router;
  router.add("GET", "/api/task-definitions/:target", [](const HttpRequest& r) {
    HttpResponse out;
    out.body = r.params.at("target");
    return out;
  });
  auto response = router.dispatch(request("GET", "/api/task-definitions/review%2Fcheck"));
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "review/check");
}

TEST(RouterTest, UnknownPathIsNotFoundAndWrongMethodIs405) {
  Router router;
  router.add("GET", "/api/runs/:runId", [](const HttpRequest&) { return HttpResponse{}; });
  router.add("DELETE", "/api/runs/:runId", [](const HttpRequest&) { return HttpResponse{}; });
  auto missing = router.dispatch(request("GET", "/api/nothing"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(error_code(missing), "NOT_FOUND");
  auto wrong = router.dispatch(request("PUT", "/api/runs/abc"));
  EXPECT_EQ(wrong.status, 405);
  ASSERT_EQ(wrong.headers.size(), 1u);
  EXPECT_EQ(wrong.headers[0].second, "GET, DELETE");
}

TEST(RouterTest, HandlerExceptionsBecomeInternalErrorsThatReachOnlyTheLog) {
  Router router;
  router.add("GET", "/boom", [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("secret detail"); });
  auto response = router.dispatch(request("GET", "/boom"));
  EXPECT_EQ(response.status, 500);
  EXPECT_NE(response.body.find("secret detail"), std::string::npos);  // for the transport to log
  auto sent = client_response(std::move(response), "req_test1", "GET /boom");
  EXPECT_EQ(sent.status, 500);
  EXPECT_EQ(sent.body.find("secret detail"), std::string::npos);
  EXPECT_NE(sent.body.find("\"requestId\":\"req_test1\""), std::string::npos) << sent.body;
  EXPECT_NE(sent.body.find("INTERNAL"), std::string::npos);
  ASSERT_FALSE(sent.headers.empty());
  EXPECT_EQ(sent.headers.back().first, "X-Request-Id");
  auto fine = client_response(error_response(core::ErrorCode::not_found, "no run x"), "req_test2", "GET /x");
  EXPECT_NE(fine.body.find("no run x"), std::string::npos);  // only 5xx bodies are replaced
}

TEST(RouterTest, MalformedEncodingIsABadRequest) {
  Router router;
  router.add("GET", "/api/runs/:runId", [](const HttpRequest&) { return HttpResponse{}; });
  EXPECT_EQ(router.dispatch(request("GET", "/api/runs/%zz")).status, 400);
}

TEST(HttpMessageTest, ParsesQueryStrings) {
  std::string path;
  std::map<std::string, std::string> query;
  ASSERT_TRUE(parse_target("/api/runs?cwd=%2Ftmp%2Fa+b&global=true&flag", path, query));
  EXPECT_EQ(path, "/api/runs");
  EXPECT_EQ(query["cwd"], "/tmp/a b");
  EXPECT_EQ(query["global"], "true");
  EXPECT_EQ(query["flag"], "");
  EXPECT_FALSE(parse_target("/x?a=%4", path, query));
}

}  // namespace
}  // namespace agentry::api
