#include "cli/rpc_protocol.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace agentry::cli {
namespace {
namespace json = boost::json;

TEST(RpcProtocolTest, RequestsAreJsonRpc2WithParams) {
  auto text = rpc_request_text(7, "runs.get", json::object{{"runId", "abc"}});
  auto v = json::parse(text).as_object();
  EXPECT_EQ(v.at("jsonrpc"), "2.0");
  EXPECT_EQ(v.at("id").as_int64(), 7);
  EXPECT_EQ(v.at("method"), "runs.get");
  EXPECT_EQ(v.at("params").at("runId"), "abc");
}

TEST(RpcProtocolTest, ResultsAndNotificationsAreTold) {
  auto result = parse_rpc_incoming(R"({"jsonrpc":"2.0","id":3,"result":{"runs":[]}})");
  auto* r = std::get_if<RpcResponse>(&result);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, 3);
  EXPECT_TRUE(r->ok);
  EXPECT_TRUE(r->result.at("runs").is_array());

  auto note = parse_rpc_incoming(
      R"({"jsonrpc":"2.0","method":"run.timeline","params":{"subscriptionId":"s","runId":"r","cursor":4,"event":{}}})");
  auto* n = std::get_if<RpcNotification>(&note);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->method, "run.timeline");
  EXPECT_EQ(n->params.at("cursor").as_int64(), 4);

  EXPECT_TRUE(std::holds_alternative<RpcMalformed>(parse_rpc_incoming("not json")));
  EXPECT_TRUE(std::holds_alternative<RpcMalformed>(parse_rpc_incoming("[1]")));
  EXPECT_TRUE(std::holds_alternative<RpcMalformed>(parse_rpc_incoming(R"({"jsonrpc":"2.0","id":1})")));
}

TEST(RpcProtocolTest, ControlPlaneErrorsKeepTheApiCodeAndDetails) {
  auto in = parse_rpc_incoming(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"no run with id 'x'",
      "data":{"code":"NOT_FOUND","status":404,"details":{"runId":"x"}}}})");
  auto* r = std::get_if<RpcResponse>(&in);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->error.code, core::ErrorCode::not_found);
  EXPECT_EQ(r->error.message, "no run with id 'x'");
  EXPECT_EQ(r->error.details.at("runId"), "x");
  for (auto [name, code] : {std::pair{"INVALID_REQUEST", core::ErrorCode::invalid_request},
                            std::pair{"CONFLICT", core::ErrorCode::conflict},
                            std::pair{"VALIDATION_FAILED", core::ErrorCode::validation},
                            std::pair{"UNAUTHENTICATED", core::ErrorCode::unauthenticated},
                            std::pair{"SOMETHING_NEW", core::ErrorCode::internal}})
    EXPECT_EQ(error_code_from_name(name), code) << name;
}

TEST(RpcProtocolTest, ProtocolAndRuntimeErrorsMapToRefusalOrFailure) {
  auto error = [](const char* text, std::string_view method = "runs.x") {
    return rpc_error_to_error(json::parse(text).as_object(), method);
  };
  EXPECT_EQ(error(R"({"code":-32600,"message":"bad"})").code, core::ErrorCode::invalid_request);
  EXPECT_EQ(error(R"({"code":-32700,"message":"bad"})").code, core::ErrorCode::invalid_request);
  auto unknown = error(R"({"code":-32601,"message":"no method"})", "runs.fly");
  EXPECT_EQ(unknown.code, core::ErrorCode::internal);
  EXPECT_NE(unknown.message.find("runs.fly"), std::string::npos);
  EXPECT_EQ(error(R"({"code":-32004,"message":"boom"})").code, core::ErrorCode::internal);
}

}  // namespace
}  // namespace agentry::cli
