#pragma once
// A Router served by the real HttpServer on an ephemeral loopback port, on a thread of its
// own, for the server's unit tests; stopped when it goes.

#include "api/http_server.hpp"
#include "api/router.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <thread>

namespace agentry::api {

struct ServedRouter {
  Router router;
  std::unique_ptr<HttpServer> server;
  std::uint16_t port = 0;
  std::thread serving;

  /// `configure`: settings the server takes before it runs.
  void start(ServerThreads threads = {}, const std::function<void(HttpServer&)>& configure = {}) {
    server = std::make_unique<HttpServer>(router, ServerLimits{}, threads);
    if (configure) configure(*server);
    auto bound = server->listen("127.0.0.1", 0);
    ASSERT_TRUE(bound) << bound.error().message;
    port = *bound;
    serving = std::thread([this] { server->run(); });
  }
  void stop() {
    if (!server) return;
    server->stop();
    serving.join();
    server.reset();
  }
  ~ServedRouter() { stop(); }
};

}  // namespace agentry::api
