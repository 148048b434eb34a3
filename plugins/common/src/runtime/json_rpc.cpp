#include "agentry/plugin_common/runtime/json_rpc.hpp"

#include <utility>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::plugin_common::runtime {

namespace json = boost::json;

int64_t JsonRpcPeer::request(std::string_view method, json::value params, ResultHandler done) {
  const int64_t id = next_id_++;
  waiting_.emplace(id, std::move(done));
  send(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  return id;
}

void JsonRpcPeer::notify(std::string_view method, json::value params) {
  send(json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void JsonRpcPeer::respond(const json::value& id, json::value result) {
  send(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void JsonRpcPeer::respond_error(const json::value& id, int64_t code, std::string_view message) {
  send(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"error", json::object{{"code", code}, {"message", message}}}});
}

void JsonRpcPeer::send(const json::value& message) {
  std::string line = json::serialize(message);
  line.push_back('\n');
  send_(std::move(line));
}

void JsonRpcPeer::receive(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty()) return;
  auto noise = [&](std::string_view why) {
    if (on_noise_) on_noise_(line, why);
  };
  boost::system::error_code ec;
  json::value parsed = json::parse(line, ec);
  if (ec || !parsed.is_object()) return noise("not a JSON object");
  json::object& message = parsed.get_object();
  const json::value* method = message.if_contains("method");
  const json::value* id = message.if_contains("id");
  static const json::value kNoParams = json::object{};
  const json::value* params = message.if_contains("params");
  if (params == nullptr) params = &kNoParams;

  if (method != nullptr) {
    if (!method->is_string()) return noise("method is not a string");
    if (id != nullptr && !id->is_null()) {
      if (on_request_) on_request_(*id, method->get_string(), *params);
      else respond_error(*id, RpcError::kMethodNotFound, "method not found");
    } else if (on_notification_) {
      on_notification_(method->get_string(), *params);
    }
    return;
  }
  if (id == nullptr || !id->is_int64()) return noise("an answer to no request of ours");
  auto waiting = waiting_.find(id->get_int64());
  if (waiting == waiting_.end()) return noise("an answer to no request of ours");
  ResultHandler done = std::move(waiting->second);
  waiting_.erase(waiting);
  if (const json::value* error = message.if_contains("error"); error != nullptr && error->is_object()) {
    RpcError e;
    const json::object& o = error->get_object();
    if (const json::value* code = o.if_contains("code"); code && code->is_int64()) e.code = code->get_int64();
    if (const json::value* text = o.if_contains("message"); text && text->is_string()) e.message = text->get_string();
    if (const json::value* data = o.if_contains("data")) e.data = *data;
    done(nullptr, &e);
    return;
  }
  static const json::value kNull;
  const json::value* result = message.if_contains("result");
  done(result != nullptr ? result : &kNull, nullptr);
}

void JsonRpcPeer::fail_pending(const RpcError& error) {
  std::map<int64_t, ResultHandler> waiting = std::move(waiting_);
  waiting_.clear();
  for (auto& [id, done] : waiting) done(nullptr, &error);
}

}  // namespace agentry::plugin_common::runtime
