// Inbound triggers over the real daemon: a signed delivery starts the trigger's
// assignment with vars from its payload, once per dedup key; a bad signature, a stale
// timestamp, a filter that does not match and a missing var start nothing.
#include "daemon_fixture.hpp"
#include "reference_hmac.hpp"

#include <chrono>
#include <cstdio>
#include <future>
#include <map>
#include <set>

namespace agentry::integration {
namespace {
namespace json = boost::json;

constexpr const char* secret = "trigger-secret-value";

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class TriggersTest : public DaemonTest {
 protected:
  void SetUp() override {
    daemon_env_ = {{"AGENTRY_TEST_TRIGGER_SECRET", secret}};
    DaemonTest::SetUp();
    write_agent("bot", "mock", "{steps: [{say: hi}]}");
    write_assignment("triage", "message: \"Triage issue #{{issue}}: {{title}}\"\nvars:\n"
                               "  issue: {type: number, required: true}\n"
                               "  title: {type: string, required: true}\n"
                               "  labels: {type: string}\n");
    write_trigger("issues",
                  "scheme: agentry\nreplayWindowSeconds: 300\n"
                  "vars:\n  issue: /issue/number\n  title: /issue/title\n"
                  "  labels: {from: /issue/labels, required: false}\n"
                  "filter:\n  /action: [opened, reopened]\n"
                  "dedupKey: \"issue-{{/issue/number}}-{{/action}}\"\n");
  }

  void write_trigger(const std::string& name, const std::string& rest) {
    dir_.write_file("config/triggers/" + name + ".yaml",
                    "schemaVersion: 1\nassignment: triage\nagent: bot\nsecretEnv: AGENTRY_TEST_TRIGGER_SECRET\ncwd: " +
                        work_.string() + "\n" + rest);
  }

  /// POST /api/triggers/<name>, signed by the agentry scheme at `timestamp`.
  test::HttpResponse deliver(const std::string& name, const std::string& body, std::int64_t timestamp,
                             const std::string& key = secret) {
    const std::string ts = std::to_string(timestamp);
    return client().request("POST", "/api/triggers/" + name, body,
                            {{"Content-Type", "application/json"},
                             {"X-Agentry-Timestamp", ts},
                             {"X-Agentry-Signature", "sha256=" + hmac_hex(key, ts + "." + body)}});
  }
  test::HttpResponse deliver(const std::string& name, const std::string& body) {
    return deliver(name, body, now_seconds());
  }

  static std::string issue_payload(int number, const std::string& action = "opened") {
    return json::serialize(json::object{
        {"action", action},
        {"issue", {{"number", number}, {"title", "Crash on start"}, {"labels", json::array{"bug", "p1"}}}}});
  }
};

TEST_F(TriggersTest, ASignedDeliveryStartsTheAssignmentWithVarsFromThePayload) {
  auto response = deliver("issues", issue_payload(42));
  ASSERT_EQ(response.status, 201) << response.body;
  auto answer = response.json().as_object();
  EXPECT_EQ(answer.at("duplicate"), json::value(false));
  EXPECT_EQ(answer.at("trigger"), json::value("issues"));
  const std::string run_id(answer.at("runId").as_string());
  auto run = get_run(run_id);
  EXPECT_EQ(run.at("vars").at("issue").to_number<int>(), 42);
  EXPECT_EQ(run.at("vars").at("title"), json::value("Crash on start"));
  EXPECT_EQ(run.at("vars").at("labels"), json::value("[\"bug\",\"p1\"]"));  // an array, as JSON text
  EXPECT_EQ(run.at("message"), json::value("Triage issue #42: Crash on start"));
  EXPECT_EQ(run.at("cwd"), json::value(work_.string()));
  EXPECT_EQ(wait_until_settled(run_id), "success");
}

TEST_F(TriggersTest, ARedeliveryIsADuplicateAndStartsNothing) {
  auto first = deliver("issues", issue_payload(7));
  ASSERT_EQ(first.status, 201) << first.body;
  const std::string run_id(first.json().at("runId").as_string());
  // A new timestamp (so a new signature): the same event, sent again.
  auto again = deliver("issues", issue_payload(7), now_seconds() + 1);
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.json().at("duplicate"), json::value(true));
  EXPECT_EQ(again.json().at("runId"), json::value(run_id));
  EXPECT_EQ(all_run_ids().size(), 1u);
  // Another event is another run.
  EXPECT_EQ(deliver("issues", issue_payload(7, "reopened")).status, 201);
  EXPECT_EQ(all_run_ids().size(), 2u);
}

TEST_F(TriggersTest, ConcurrentDeliveriesOfOneEventStartOneRun) {
  std::vector<std::future<test::HttpResponse>> sent;
  for (int i = 0; i < 6; ++i)
    sent.push_back(std::async(std::launch::async, [this, i] { return deliver("issues", issue_payload(99), now_seconds() + i); }));
  std::set<std::string> run_ids;
  int created = 0;
  for (auto& f : sent) {
    auto response = f.get();
    ASSERT_TRUE(response.status == 201 || response.status == 200) << response.status << " " << response.body;
    created += response.status == 201;
    run_ids.insert(std::string(response.json().at("runId").as_string()));
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(run_ids.size(), 1u);
  EXPECT_EQ(all_run_ids().size(), 1u);
}

TEST_F(TriggersTest, ABadSignatureOrAStaleTimestampIs401AndStartsNothing) {
  const std::string body = issue_payload(5);
  const auto now = now_seconds();
  std::vector<std::pair<std::string, test::HttpResponse>> refused;
  refused.emplace_back("wrong secret", deliver("issues", body, now, "not-the-secret"));
  refused.emplace_back("too old", deliver("issues", body, now - 301));
  // Ahead by more than the window plus any time the daemon may take to read it: `now`
  // was read here, and a loaded machine reached the daemon's clock a second later.
  refused.emplace_back("too far ahead", deliver("issues", body, now + 330));
  // A valid signature over another body.
  const std::string ts = std::to_string(now);
  refused.emplace_back("body changed", client().request("POST", "/api/triggers/issues", issue_payload(6),
                                                        {{"Content-Type", "application/json"},
                                                         {"X-Agentry-Timestamp", ts},
                                                         {"X-Agentry-Signature", "sha256=" + hmac_hex(secret, ts + "." + body)}}));
  refused.emplace_back("unsigned", client().request("POST", "/api/triggers/issues", body,
                                                    {{"Content-Type", "application/json"}, {"X-Agentry-Timestamp", ts}}));
  refused.emplace_back("no timestamp", client().request("POST", "/api/triggers/issues", body,
                                                        {{"Content-Type", "application/json"},
                                                         {"X-Agentry-Signature", "sha256=" + hmac_hex(secret, "." + body)}}));
  refused.emplace_back("timestamp not a number",
                       client().request("POST", "/api/triggers/issues", body,
                                        {{"Content-Type", "application/json"},
                                         {"X-Agentry-Timestamp", "soon"},
                                         {"X-Agentry-Signature", "sha256=" + hmac_hex(secret, "soon." + body)}}));
  for (const auto& [what, response] : refused) {
    EXPECT_EQ(response.status, 401) << what << ": " << response.body;
    EXPECT_EQ(error_code_of(response), "UNAUTHENTICATED") << what;
  }
  EXPECT_TRUE(all_run_ids().empty());
  // The same delivery, signed now, is accepted: the refusals left no dedup key behind.
  EXPECT_EQ(deliver("issues", body).status, 201);
}

TEST_F(TriggersTest, TheGithubSchemeSignsTheBodyAndDedupsOnTheDeliveryId) {
  write_trigger("gh", "scheme: github\nvars:\n  issue: /issue/number\n  title: /issue/title\n"
                      "filter:\n  /action: opened\n");
  const std::string body = issue_payload(3);
  auto send = [&](const std::string& delivery, const std::string& signature) {
    return client().request("POST", "/api/triggers/gh", body,
                            {{"Content-Type", "application/json"},
                             {"X-GitHub-Event", "issues"},
                             {"X-GitHub-Delivery", delivery},
                             {"X-Hub-Signature-256", signature}});
  };
  EXPECT_EQ(send("d-1", "sha256=" + hmac_hex("wrong", body)).status, 401);
  auto first = send("d-1", "sha256=" + hmac_hex(secret, body));
  ASSERT_EQ(first.status, 201) << first.body;
  auto again = send("d-1", "sha256=" + hmac_hex(secret, body));
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.json().at("duplicate"), json::value(true));
  EXPECT_EQ(again.json().at("runId"), first.json().at("runId"));
  EXPECT_EQ(send("d-2", "sha256=" + hmac_hex(secret, body)).status, 201);  // a new delivery id
  EXPECT_EQ(all_run_ids().size(), 2u);
}

TEST_F(TriggersTest, AStartTheEngineRefusesLeavesNoDedupKeyBehind) {
  write_trigger("gh", "scheme: github\nvars:\n  issue: /issue/number\n  title: /issue/title\n");
  auto send = [&](const std::string& body) {
    return client().request("POST", "/api/triggers/gh", body,
                            {{"Content-Type", "application/json"},
                             {"X-GitHub-Delivery", "same-delivery"},
                             {"X-Hub-Signature-256", "sha256=" + hmac_hex(secret, body)}});
  };
  // The assignment declares `issue` a number: the engine's own var check refuses a string.
  auto refused = send(R"({"issue":{"number":"seven","title":"t"}})");
  ASSERT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("vars.issue"), std::string::npos) << refused.body;
  EXPECT_TRUE(all_run_ids().empty());
  // The sender fixes it and redelivers under the same delivery id: not a duplicate.
  auto fixed = send(R"({"issue":{"number":7,"title":"t"}})");
  EXPECT_EQ(fixed.status, 201) << fixed.body;
  EXPECT_EQ(all_run_ids().size(), 1u);
}

TEST_F(TriggersTest, AFilterThatDoesNotMatchIsIgnored) {
  auto response = deliver("issues", issue_payload(8, "closed"));
  ASSERT_EQ(response.status, 202) << response.body;
  EXPECT_EQ(response.json().at("ignored"), json::value(true));
  EXPECT_NE(std::string(response.json().at("reason").as_string()).find("/action"), std::string::npos);
  EXPECT_TRUE(all_run_ids().empty());
}

TEST_F(TriggersTest, AMissingVarIs422NamingItAndBadInputIsRefused) {
  auto missing = deliver("issues", R"({"action":"opened","issue":{"number":1}})");
  ASSERT_EQ(missing.status, 422) << missing.body;
  EXPECT_EQ(error_code_of(missing), "VALIDATION_FAILED");
  EXPECT_NE(missing.body.find("/issue/title"), std::string::npos) << missing.body;
  EXPECT_NE(missing.body.find("vars.title"), std::string::npos) << missing.body;

  auto not_json = deliver("issues", "this is not json");
  EXPECT_EQ(not_json.status, 400) << not_json.body;
  EXPECT_EQ(error_code_of(not_json), "INVALID_REQUEST");

  auto unknown = deliver("no-such-trigger", issue_payload(1));
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_EQ(error_code_of(unknown), "NOT_FOUND");
  EXPECT_TRUE(all_run_ids().empty());
}

TEST_F(TriggersTest, ATriggerWhoseSecretIsUnsetRefusesEveryDelivery) {
  write_trigger("nosecret", "vars:\n  issue: /issue/number\n  title: /issue/title\n");
  // The file names AGENTRY_TEST_TRIGGER_SECRET; point another at a variable nobody set.
  dir_.write_file("config/triggers/nosecret.yaml",
                  "schemaVersion: 1\nassignment: triage\nagent: bot\nsecretEnv: AGENTRY_TEST_UNSET_SECRET\n"
                  "vars:\n  issue: /issue/number\n  title: /issue/title\n");
  auto response = deliver("nosecret", issue_payload(1));
  EXPECT_EQ(response.status, 503) << response.body;
  EXPECT_NE(response.body.find("AGENTRY_TEST_UNSET_SECRET"), std::string::npos);
  // Signed with an empty key: still refused, never accepted unsigned.
  EXPECT_EQ(deliver("nosecret", issue_payload(1), now_seconds(), "").status, 503);
  EXPECT_TRUE(all_run_ids().empty());

  auto listing = client().get("/api/triggers");
  ASSERT_EQ(listing.status, 200) << listing.body;
  std::map<std::string, bool> secret_set;
  const auto body = listing.json();
  for (const auto& t : body.at("triggers").as_array())
    secret_set[std::string(t.at("name").as_string())] = t.at("secretSet").as_bool();
  EXPECT_EQ(secret_set, (std::map<std::string, bool>{{"issues", true}, {"nosecret", false}}));
  EXPECT_EQ(listing.body.find(secret), std::string::npos);  // never the secret itself
}

TEST_F(TriggersTest, WithBearerAuthOnADeliveryNeedsItsSignatureAndNotTheToken) {
  start_daemon({{"AGENTRY_DAEMON_AUTH_ENABLED", "true"}, {"AGENTRY_DAEMON_TOKEN", "daemon-token"}});
  EXPECT_EQ(deliver("issues", issue_payload(11), now_seconds(), "wrong").status, 401);
  auto response = deliver("issues", issue_payload(11));
  EXPECT_EQ(response.status, 201) << response.body;
  // The listing is an ordinary API route: it needs the token.
  EXPECT_EQ(client().get("/api/triggers").status, 401);
  EXPECT_EQ(client().get("/api/triggers", {{"Authorization", "Bearer daemon-token"}}).status, 200);
}

TEST_F(TriggersTest, AProjectsAgentryDirectoryCannotDefineATrigger) {
  // A project's .agentry/triggers/ is never read, trusted or not.
  dir_.write_file("work/.agentry/triggers/sneaky.yaml",
                  "schemaVersion: 1\nassignment: triage\nagent: bot\nsecretEnv: AGENTRY_TEST_TRIGGER_SECRET\n");
  EXPECT_EQ(deliver("sneaky", issue_payload(1)).status, 404);
}

}  // namespace
}  // namespace agentry::integration
