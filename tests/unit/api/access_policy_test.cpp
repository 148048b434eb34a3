#include "api/access_policy.hpp"

#include <gtest/gtest.h>

namespace agentry::api {
namespace {

HttpRequest with_authorization(std::optional<std::string> value) {
  HttpRequest r;
  r.method = "GET";
  r.target = r.path = "/api/runs";
  if (value) r.headers["authorization"] = *value;
  return r;
}

core::Settings auth(bool enabled, std::string token) {
  core::Settings s;
  s.auth_enabled = enabled;
  s.daemon_token = std::move(token);
  return s;
}

TEST(AccessPolicy, OffLetsEveryRequestInWhateverTheToken) {
  auto policy = AccessPolicy::from_settings(auth(false, "tok"));
  ASSERT_TRUE(policy.ok());
  EXPECT_FALSE(policy->enabled());
  EXPECT_EQ(policy->authenticate(with_authorization(std::nullopt)), std::string());
}

TEST(AccessPolicy, OnNeedsTheSettingsTokenAsBearer) {
  auto policy = AccessPolicy::from_settings(auth(true, "tok-123"));
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_TRUE(policy->enabled());
  EXPECT_EQ(policy->authenticate(with_authorization("Bearer tok-123")), std::string());
  EXPECT_EQ(policy->authenticate(with_authorization("bearer  tok-123 ")), std::string());
  EXPECT_EQ(policy->authenticate(with_authorization("Bearer tok-12")), std::nullopt);
  EXPECT_EQ(policy->authenticate(with_authorization(std::nullopt)), std::nullopt);
}

TEST(AccessPolicy, OnWithoutATokenIsRefusedNamingBothVariables) {
  auto policy = AccessPolicy::from_settings(auth(true, ""));
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().code, core::ErrorCode::validation);
  EXPECT_NE(policy.error().message.find("AGENTRY_DAEMON_AUTH_ENABLED"), std::string::npos);
  EXPECT_NE(policy.error().message.find("AGENTRY_DAEMON_TOKEN is empty"), std::string::npos);
}

}  // namespace
}  // namespace agentry::api
