#include "core/notify_target.hpp"

#include <gtest/gtest.h>

#include <map>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::core {
namespace {
namespace json = boost::json;

struct Parsed {
  std::vector<NotifyTarget> targets;
  std::vector<std::pair<std::string, std::string>> problems;
};

Parsed parse(std::string_view text, bool allow_commands = true) {
  Parsed out;
  out.targets = parse_notify_targets(json::parse(text), "notify", "agent", allow_commands,
                                     [&](const std::string& f, const std::string& m) { out.problems.emplace_back(f, m); });
  return out;
}

TEST(NotifyTarget, ParsesWebhooksAndCommandsWithDefaultEvents) {
  auto p = parse(R"([{"webhook": "https://hooks.example.com/a?x=1", "secretEnv": "HOOK_SECRET",
                      "events": ["run.finished"]},
                     {"command": ["notify-send", "agentry"]}])");
  ASSERT_TRUE(p.problems.empty()) << p.problems[0].first << ": " << p.problems[0].second;
  ASSERT_EQ(p.targets.size(), 2u);
  EXPECT_EQ(p.targets[0].kind, NotifyTarget::Kind::webhook);
  EXPECT_EQ(p.targets[0].secret_env, "HOOK_SECRET");
  EXPECT_TRUE(p.targets[0].wants("run.finished"));
  EXPECT_FALSE(p.targets[0].wants("run.needs_user"));
  EXPECT_EQ(p.targets[1].command, (std::vector<std::string>{"notify-send", "agentry"}));
  EXPECT_TRUE(p.targets[1].wants("run.finished") && p.targets[1].wants("run.needs_user"));
  EXPECT_EQ(p.targets[1].origin, "agent");
}

TEST(NotifyTarget, NamesTheFieldOfEveryProblem) {
  auto p = parse(R"([{"webhook": "ftp://x"}, {"webhook": "http://h", "events": ["run.done"]},
                     {"command": []}, {"webhook": "http://h", "command": ["x"]}, {"url": "http://h"},
                     {"command": ["x"], "secret": "s"}, "nope"])");
  std::map<std::string, std::string> by_field(p.problems.begin(), p.problems.end());
  EXPECT_TRUE(by_field.count("notify[0].webhook"));
  EXPECT_TRUE(by_field.count("notify[1].events[0]"));
  EXPECT_TRUE(by_field.count("notify[2].command"));
  EXPECT_TRUE(by_field.count("notify[3]"));
  EXPECT_TRUE(by_field.count("notify[4].url"));
  EXPECT_TRUE(by_field.count("notify[5].secret"));
  EXPECT_TRUE(by_field.count("notify[6]"));
  EXPECT_TRUE(p.targets.empty());
  auto not_a_list = parse(R"({"webhook": "http://h"})");
  ASSERT_EQ(not_a_list.problems.size(), 1u);
  EXPECT_EQ(not_a_list.problems[0].first, "notify");
}

TEST(NotifyTarget, TheApiMayNotDeclareCommands) {
  auto p = parse(R"([{"command": ["rm", "-rf", "/"]}])", /*allow_commands=*/false);
  ASSERT_EQ(p.problems.size(), 1u);
  EXPECT_EQ(p.problems[0].first, "notify[0].command");
  EXPECT_TRUE(p.targets.empty());
}

TEST(NotifyTarget, SecretsStayOutOfRedactedViews) {
  auto p = parse(R"([{"webhook": "https://user:pw@hooks.example.com:8443/path/x?token=abc#frag", "secret": "s3cr3t"}])");
  ASSERT_TRUE(p.problems.empty());
  EXPECT_EQ(redacted_target(p.targets[0]), "https://hooks.example.com:8443/path/x");
  auto shown = json::serialize(to_json(p.targets[0], /*redact_secret=*/true));
  EXPECT_EQ(shown.find("s3cr3t"), std::string::npos) << shown;
  auto stored = to_json(p.targets[0]);
  auto back = notify_target_from_json(stored);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->secret, "s3cr3t");
  EXPECT_EQ(back->url, p.targets[0].url);
}

TEST(NotifyTarget, UrlsParse) {
  auto u = parse_http_url("http://127.0.0.1:8080/hook?a=b");
  ASSERT_TRUE(u);
  EXPECT_FALSE(u->tls);
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, "8080");
  EXPECT_EQ(u->target, "/hook?a=b");
  auto v6 = parse_http_url("https://[::1]/x");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, "443");
  EXPECT_EQ(parse_http_url("https://h")->target, "/");
  std::string why;
  EXPECT_FALSE(parse_http_url("file:///etc/passwd", &why));
  EXPECT_FALSE(parse_http_url("http://h:99999/", &why));
  EXPECT_FALSE(parse_http_url("http:///x", &why));
  EXPECT_FALSE(parse_http_url("http://h/a b", &why));
}

}  // namespace
}  // namespace agentry::core
