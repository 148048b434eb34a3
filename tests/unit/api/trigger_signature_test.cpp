#include "api/trigger_signature.hpp"

#include "crypto/hmac.hpp"

#include <gtest/gtest.h>

#include <map>

namespace agentry::api {
namespace {

using definitions::HeaderLookup;
using definitions::TriggerScheme;

constexpr std::string_view secret = "s3cret";
constexpr std::string_view body = R"({"action":"opened"})";
constexpr std::int64_t now = 1'767'225'600;

HeaderLookup headers(std::map<std::string, std::string> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
    auto it = values.find(std::string(name));
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

std::string agentry_signature(std::int64_t timestamp, std::string_view key = secret, std::string_view signed_body = body) {
  return "sha256=" + crypto::hmac_sha256_hex(key, std::to_string(timestamp) + "." + std::string(signed_body));
}

core::Result<void> verify_agentry(std::map<std::string, std::string> h, int window = 300) {
  return verify_trigger_signature(TriggerScheme::agentry, secret, window, headers(std::move(h)), body, now);
}

TEST(TriggerSignature, TheAgentrySchemeSignsTheTimestampAndTheBody) {
  EXPECT_EQ(trigger_signed_text("12", "{}"), "12.{}");
  EXPECT_TRUE(verify_agentry({{"X-Agentry-Timestamp", std::to_string(now)}, {"X-Agentry-Signature", agentry_signature(now)}}).ok());
  // Upper-case hex is the same signature.
  std::string upper = agentry_signature(now);
  for (std::size_t i = 7; i < upper.size(); ++i) upper[i] = static_cast<char>(std::toupper(upper[i]));
  EXPECT_TRUE(verify_agentry({{"X-Agentry-Timestamp", std::to_string(now)}, {"X-Agentry-Signature", upper}}).ok());
}

TEST(TriggerSignature, TheReplayWindowBoundsTheTimestampBothWays) {
  for (std::int64_t at : {now - 300, now + 300, now - 10})
    EXPECT_TRUE(verify_agentry({{"X-Agentry-Timestamp", std::to_string(at)}, {"X-Agentry-Signature", agentry_signature(at)}}).ok())
        << at - now;
  for (std::int64_t at : {now - 301, now + 301, std::int64_t{0}}) {
    auto result = verify_agentry({{"X-Agentry-Timestamp", std::to_string(at)}, {"X-Agentry-Signature", agentry_signature(at)}});
    ASSERT_FALSE(result.ok()) << at - now;
    EXPECT_EQ(result.error().code, core::ErrorCode::unauthenticated);
    EXPECT_NE(result.error().message.find("replay window"), std::string::npos) << result.error().message;
  }
  const auto at = now - 100;
  EXPECT_FALSE(verify_agentry({{"X-Agentry-Timestamp", std::to_string(at)}, {"X-Agentry-Signature", agentry_signature(at)}}, 60).ok());
}

TEST(TriggerSignature, EveryBrokenProofIsUnauthenticated) {
  const std::string ts = std::to_string(now);
  const std::vector<std::pair<std::string, std::map<std::string, std::string>>> cases = {
      {"no headers", {}},
      {"no signature", {{"X-Agentry-Timestamp", ts}}},
      {"no timestamp", {{"X-Agentry-Signature", agentry_signature(now)}}},
      {"another key", {{"X-Agentry-Timestamp", ts}, {"X-Agentry-Signature", agentry_signature(now, "other")}}},
      {"another body", {{"X-Agentry-Timestamp", ts}, {"X-Agentry-Signature", agentry_signature(now, secret, "{}")}}},
      {"another timestamp", {{"X-Agentry-Timestamp", std::to_string(now + 1)}, {"X-Agentry-Signature", agentry_signature(now)}}},
      {"no algorithm", {{"X-Agentry-Timestamp", ts}, {"X-Agentry-Signature", agentry_signature(now).substr(7)}}},
      {"timestamp not a number", {{"X-Agentry-Timestamp", ts + "s"}, {"X-Agentry-Signature", agentry_signature(now)}}},
      {"empty signature", {{"X-Agentry-Timestamp", ts}, {"X-Agentry-Signature", ""}}},
  };
  for (const auto& [what, h] : cases) {
    auto result = verify_agentry(h);
    ASSERT_FALSE(result.ok()) << what;
    EXPECT_EQ(result.error().code, core::ErrorCode::unauthenticated) << what;
  }
}

TEST(TriggerSignature, TheGithubSchemeSignsTheBodyAlone) {
  const std::string good = "sha256=" + crypto::hmac_sha256_hex(secret, body);
  auto verify = [](std::map<std::string, std::string> h) {
    return verify_trigger_signature(TriggerScheme::github, secret, 300, headers(std::move(h)), body, now);
  };
  EXPECT_TRUE(verify({{"X-Hub-Signature-256", good}}).ok());
  EXPECT_FALSE(verify({}).ok());
  EXPECT_FALSE(verify({{"X-Hub-Signature-256", "sha256=" + crypto::hmac_sha256_hex("other", body)}}).ok());
  // GitHub's older SHA-1 header is not accepted in its place.
  EXPECT_FALSE(verify({{"X-Hub-Signature", good}}).ok());
}

}  // namespace
}  // namespace agentry::api
