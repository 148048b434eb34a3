#include "api/browser_guard.hpp"

#include "core/settings.hpp"

#include <gtest/gtest.h>

namespace agentry::api {
namespace {

HttpRequest request(std::string method, std::map<std::string, std::string> headers, std::string body = {}) {
  HttpRequest r;
  r.method = std::move(method);
  r.target = r.path = "/api/runs";
  r.headers = std::move(headers);
  r.body = std::move(body);
  return r;
}

int status_of(const BrowserGuard& guard, const HttpRequest& r, bool upgrade = false) {
  auto refused = guard.refusal(r, upgrade);
  return refused ? refused->status : 0;
}

const BrowserGuard guard("127.0.0.1", {"agentry.internal"}, {"http://localhost:5173"});

TEST(BrowserGuard, OnlyLoopbackTheListenHostOrListedHostsAreAnswered) {
  for (const char* host : {"127.0.0.1:4773", "localhost:4773", "[::1]:4773", "127.1.2.3", "app.localhost:1",
                           "agentry.internal"})
    EXPECT_EQ(status_of(guard, request("GET", {{"host", host}})), 0) << host;
  // DNS rebinding: a name the attacker controls, resolving to 127.0.0.1.
  for (const char* host : {"evil.example:4773", "127.0.0.1.evil.example", "0.0.0.0:4773", "", "[::1"})
    EXPECT_EQ(status_of(guard, request("GET", {{"host", host}})), 403) << host;
  EXPECT_EQ(status_of(guard, request("GET", {})), 0);  // HTTP/1.0 clients may send none
}

TEST(BrowserGuard, ForeignOriginsAreRefusedForRequestsAndUpgrades) {
  auto from = [](const char* origin, const char* host = "127.0.0.1:4773") {
    return request("GET", {{"host", host}, {"origin", origin}});
  };
  EXPECT_EQ(status_of(guard, from("http://127.0.0.1:4773")), 0);  // the dashboard itself
  EXPECT_EQ(status_of(guard, from("http://localhost:4773", "localhost:4773")), 0);
  EXPECT_EQ(status_of(guard, from("http://LOCALHOST:5173")), 0);  // allow-listed
  for (const char* origin : {"https://evil.example", "null", "http://127.0.0.1:4774", "http://localhost:5173.evil",
                             "file://", "garbage"}) {
    EXPECT_EQ(status_of(guard, from(origin)), 403) << origin;
    EXPECT_EQ(status_of(guard, from(origin), true), 403) << origin;
  }
  auto refused = guard.refusal(from("https://evil.example"), true);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->body.find("FORBIDDEN"), std::string::npos);
  EXPECT_NE(refused->body.find("AGENTRY_ALLOWED_ORIGINS"), std::string::npos);
}

TEST(BrowserGuard, CrossSiteSubresourcesWithoutOriginAreRefused) {
  EXPECT_EQ(status_of(guard, request("GET", {{"host", "127.0.0.1"}, {"sec-fetch-site", "cross-site"}})), 403);
  EXPECT_EQ(status_of(guard, request("GET", {{"host", "127.0.0.1"}, {"sec-fetch-site", "same-origin"}})), 0);
}

TEST(BrowserGuard, MutatingRequestsWithABodyMustBeJson) {
  const std::map<std::string, std::string> host{{"host", "127.0.0.1"}};
  auto with_type = [&](const char* method, const char* type, std::string body) {
    auto headers = host;
    if (type) headers["content-type"] = type;
    return request(method, headers, std::move(body));
  };
  EXPECT_EQ(status_of(guard, with_type("POST", "application/json", "{}")), 0);
  EXPECT_EQ(status_of(guard, with_type("PATCH", "Application/JSON; charset=utf-8", "{}")), 0);
  EXPECT_EQ(status_of(guard, with_type("POST", nullptr, "")), 0);  // e.g. curl -X POST .../abort
  EXPECT_EQ(status_of(guard, with_type("POST", "text/plain", "{}")), 415);
  EXPECT_EQ(status_of(guard, with_type("POST", "application/x-www-form-urlencoded", "a=1")), 415);
  EXPECT_EQ(status_of(guard, with_type("DELETE", "text/plain", "")), 415);
  EXPECT_EQ(status_of(guard, with_type("PUT", nullptr, "{}")), 415);
  EXPECT_EQ(status_of(guard, with_type("GET", "text/plain", "")), 0);
}

TEST(BrowserGuard, OnlyTheUploadRouteTakesAnyTypeAndOnlyWithItsNameHeader) {
  auto upload = [](const char* method, const char* path, bool named) {
    auto r = request(method, {{"host", "127.0.0.1"}, {"content-type", "text/plain"}}, "file bytes");
    r.target = r.path = path;
    if (named) r.headers["x-agentry-attachment-name"] = "notes.txt";
    return r;
  };
  EXPECT_EQ(status_of(guard, upload("POST", "/api/runs/r1/attachments", true)), 0);
  EXPECT_EQ(status_of(guard, upload("POST", "/api/runs/r1/attachments", false)), 415);
  for (const char* path : {"/api/runs", "/api/runs/init", "/api/runs/r1/name", "/api/runs/r1/attachments/a1",
                           "/api/runs/r1/x/attachments", "/api/runs//attachments"})
    EXPECT_EQ(status_of(guard, upload("POST", path, true)), 415) << path;
  EXPECT_EQ(status_of(guard, upload("PATCH", "/api/runs/r1/attachments", true)), 415);

  EXPECT_TRUE(is_attachment_upload("POST", "/api/runs/r1/attachments"));
  EXPECT_FALSE(is_attachment_upload("PUT", "/api/runs/r1/attachments"));
  EXPECT_FALSE(is_attachment_upload("POST", "/api/runs/attachments"));
}

TEST(BrowserGuard, TheAllowListsOfTheSettingsLetTheirHostsAndOriginsIn) {
  // As serve builds it: the lists core::Settings parsed and normalized.
  auto settings = core::parse_settings([](std::string_view name) -> std::optional<std::string> {
    if (name == "AGENTRY_ALLOWED_HOSTS") return "Box.LAN:4773, other";
    if (name == "AGENTRY_ALLOWED_ORIGINS") return "HTTPS://X.dev:8443";
    return std::nullopt;
  });
  ASSERT_TRUE(settings.ok()) << settings.error().message;
  const BrowserGuard listed("0.0.0.0", settings->allowed_hosts, settings->allowed_origins);
  EXPECT_EQ(status_of(listed, request("GET", {{"host", "box.lan:4773"}})), 0);
  EXPECT_EQ(status_of(listed, request("GET", {{"host", "OTHER"}})), 0);
  EXPECT_EQ(status_of(listed, request("GET", {{"host", "0.0.0.0:4773"}})), 403);  // not a name to browse to
  EXPECT_EQ(status_of(listed, request("GET", {{"host", "box.lan"}, {"origin", "https://x.dev:8443"}})), 0);
  EXPECT_EQ(status_of(listed, request("GET", {{"host", "box.lan"}, {"origin", "https://x.dev"}})), 403);
}

}  // namespace
}  // namespace agentry::api
