#pragma once
// One webhook delivery: an HTTP(S) POST of a JSON body, with a deadline. Plain C++
// interface; Beast and Asio stay inside webhook.cpp. Each call runs a private
// io_context on the calling thread (a notifier worker), so nothing here can stall the
// daemon's server or engine threads. Redirects are not followed (a 3xx is a failure),
// the response body is read up to a cap and then ignored; https verifies the peer
// against the system's CA store (OpenSSL's default paths; SSL_CERT_FILE/SSL_CERT_DIR
// apply) and sends SNI.

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace agentry::notify {

struct WebhookRequest {
  std::string url;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // besides Host, Content-Type, Content-Length
};

struct WebhookLimits {
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds total_timeout{10000};  // resolve + connect + TLS + write + read
  std::size_t max_response_bytes = 64 * 1024;
};

struct WebhookResult {
  bool delivered = false;  // a 2xx answer
  bool permanent = false;  // the URL itself is unusable
  int status = 0;          // the HTTP status, 0 when none arrived
  std::string error;       // what went wrong, for lastError (no URL query, no secret)
};

WebhookResult post_webhook(const WebhookRequest& request, const WebhookLimits& limits);

}  // namespace agentry::notify
