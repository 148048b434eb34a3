#pragma once
// WebSocket JSON-RPC on the daemon's port or socket: one connection, from the upgrade
// request to close. Requests run the same operations as the HTTP routes;
// events.subscribe streams run_summary / run_detail / run_timeline / run_audit as
// notifications. One write in flight per connection behind a bounded outbox; a client
// that lets it fill up is disconnected (close code 1008) and resumes by cursor.
// Internal to the server TUs.

#include "api/http_server.hpp"
#include "api/operations.hpp"
#include "api/websocket_dialect.hpp"
#include "api/served_stream.hpp"
#include "core/byte_budget.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

namespace agentry::api {

struct WebSocketServices {
  const Operations& operations;
  engine::Engine& engine;
  boost::asio::thread_pool& workers;
  const ServerLimits& limits;
  /// Where `workspace.*` methods run (is_slow_method), so long git work never holds `workers`.
  boost::asio::thread_pool& slow_workers;
  /// Where answers that wait on a program finish (OperationResult::blocking).
  boost::asio::thread_pool& blocking_workers;
  /// Set on a listener that speaks another wire; our own CLI (X-Agentry-Client: cli) is
  /// still answered in ours there.
  const WebSocketDialect* dialect = nullptr;
  /// Where the outbox and unsent bytes count (api/unsent_memory.hpp); null: nowhere.
  std::shared_ptr<core::ByteBudget> unsent_memory{};
  /// Quick reads (quick_reads.hpp) are answered on the connection's own thread.
  bool quick_reads_inline = false;
};

/// `scope_run_id`: the one run a per-run token limits this connection to (api/run_scope.hpp).
boost::asio::awaitable<void> serve_websocket(WebSocketServices services, ServedStream stream,
                                             boost::beast::http::request<boost::beast::http::string_body> request,
                                             std::string scope_run_id = {});

}  // namespace agentry::api
