#include "support/http_client.hpp"

#include <array>
#include <stdexcept>

#include <sys/socket.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::test {

namespace {

constexpr std::size_t max_quoted_body = 2000;

std::string quote(std::string_view text) {
  if (text.size() <= max_quoted_body) return std::string(text);
  return std::string(text.substr(0, max_quoted_body)) + "... (" + std::to_string(text.size()) +
         " bytes)";
}

bool has(const Headers& headers, std::string_view name) {
  const std::string lower = to_lower(name);
  for (const auto& [n, v] : headers) {
    if (to_lower(n) == lower) return true;
  }
  return false;
}

std::string timed_out(std::chrono::milliseconds timeout, std::string_view what,
                      std::string_view request, std::string_view received) {
  std::string msg = "timed out after " + std::to_string(timeout.count()) + " ms " +
                    std::string(what) + " " + std::string(request);
  if (!received.empty()) {
    msg += " (received " + std::to_string(received.size()) + " bytes so far: " + quote(received) + ")";
  }
  return msg;
}

}  // namespace

boost::json::value HttpResponse::json() const {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  if (ec) {
    throw std::runtime_error("response body is not valid JSON (" + ec.message() + "); status " +
                             std::to_string(status) + ", body: " +
                             (body.empty() ? std::string("<empty>") : quote(body)));
  }
  return v;
}

std::string HttpResponse::header(std::string_view name) const {
  const auto it = headers.find(to_lower(name));
  return it == headers.end() ? std::string() : it->second;
}

bool HttpResponse::has_header(std::string_view name) const {
  return headers.contains(to_lower(name));
}

HttpClient::HttpClient(std::string host, std::uint16_t port) : host_(std::move(host)), port_(port) {}

void HttpClient::set_default_header(std::string name, std::string value) {
  std::erase_if(default_headers_,
                [&](const auto& h) { return to_lower(h.first) == to_lower(name); });
  default_headers_.emplace_back(std::move(name), std::move(value));
}

HttpResponse HttpClient::get(std::string_view target, const Headers& headers) {
  return request("GET", target, {}, headers);
}

HttpResponse HttpClient::del(std::string_view target, const Headers& headers) {
  return request("DELETE", target, {}, headers);
}

HttpResponse HttpClient::post(std::string_view target, std::string body, const Headers& headers,
                              std::string_view content_type) {
  return send_with_body("POST", target, body, headers, content_type);
}

HttpResponse HttpClient::put(std::string_view target, std::string body, const Headers& headers,
                             std::string_view content_type) {
  return send_with_body("PUT", target, body, headers, content_type);
}

HttpResponse HttpClient::patch(std::string_view target, std::string body, const Headers& headers,
                               std::string_view content_type) {
  return send_with_body("PATCH", target, body, headers, content_type);
}

HttpResponse HttpClient::post_json(std::string_view target, const boost::json::value& body,
                                   const Headers& headers) {
  return post(target, boost::json::serialize(body), headers);
}

HttpResponse HttpClient::put_json(std::string_view target, const boost::json::value& body,
                                  const Headers& headers) {
  return put(target, boost::json::serialize(body), headers);
}

HttpResponse HttpClient::patch_json(std::string_view target, const boost::json::value& body,
                                    const Headers& headers) {
  return patch(target, boost::json::serialize(body), headers);
}

HttpResponse HttpClient::send_with_body(std::string_view method, std::string_view target,
                                        std::string_view body, const Headers& headers,
                                        std::string_view content_type) {
  if (has(headers, "content-type") || content_type.empty()) {
    return request(method, target, body, headers);
  }
  Headers with_type = headers;
  with_type.emplace_back("Content-Type", std::string(content_type));
  return request(method, target, body, with_type);
}

HttpResponse HttpClient::request(std::string_view method, std::string_view target,
                                 std::string_view body, const Headers& headers) {
  const std::string what = std::string(method) + " " + std::string(target);
  const auto deadline = Clock::now() + timeout_;

  Headers all = headers;
  for (const auto& h : default_headers_) {
    if (!has(all, h.first)) all.push_back(h);
  }
  std::string req = what + " HTTP/1.1\r\n";
  if (!has(all, "host")) req += "Host: " + host_header(host_, port_) + "\r\n";
  if (!has(all, "connection")) req += "Connection: close\r\n";
  // Like every JSON client; a test of other types passes its own Content-Type.
  if (!body.empty() && !has(all, "content-type")) req += "Content-Type: application/json\r\n";
  const bool needs_length = !body.empty() || method == "POST" || method == "PUT" || method == "PATCH";
  if (needs_length && !has(all, "content-length") && !has(all, "transfer-encoding")) {
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  for (const auto& [name, value] : all) req += name + ": " + value + "\r\n";
  req += "\r\n";
  req.append(body);

  UniqueFd fd;
  try {
    fd = connect_stream(host_, port_, deadline);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(e.what()) + " (for " + what + ")");
  }
  if (send_all(fd.get(), req, deadline) == SendResult::timed_out) {
    throw std::runtime_error(timed_out(timeout_, "sending", what, {}));
  }
  // A server may answer and close before reading the whole request (413, 431...):
  // on peer_closed we still read whatever it sent.

  std::string raw;
  std::array<char, 16384> buf{};
  auto read_more = [&] {
    const auto n = recv_some(fd.get(), buf.data(), buf.size(), deadline);
    if (!n) throw std::runtime_error(timed_out(timeout_, "waiting for response to", what, raw));
    raw.append(buf.data(), *n);
    return *n;
  };

  // Head; interim 1xx responses (100 Continue) are skipped, 101 is final.
  ResponseHead head;
  std::size_t body_start = 0;
  for (;;) {
    const auto end = find_head_end(std::string_view(raw).substr(body_start));
    if (!end) {
      if (read_more() == 0) {
        throw std::runtime_error("connection closed before a complete response head to " + what +
                                 (raw.empty() ? std::string(" (no bytes received)")
                                              : " (received: " + quote(raw) + ")"));
      }
      continue;
    }
    head = parse_response_head(std::string_view(raw).substr(body_start, *end));
    body_start += *end;
    if (head.status >= 100 && head.status < 200 && head.status != 101) continue;
    break;
  }

  HttpResponse out;
  out.status = head.status;
  out.reason = std::move(head.reason);
  auto decoder = BodyDecoder::for_response(head, head.status == 101 ? "HEAD" : method);
  out.headers = std::move(head.headers);
  decoder.feed(std::string_view(raw).substr(body_start), out.body);
  while (!decoder.done()) {
    const auto n = recv_some(fd.get(), buf.data(), buf.size(), deadline);
    if (!n) throw std::runtime_error(timed_out(timeout_, "waiting for the body of the response to", what, out.body));
    if (*n == 0) {
      if (auto err = decoder.truncation_error()) {
        throw std::runtime_error(*err + " (response to " + what + ", status " +
                                 std::to_string(out.status) + ", body so far: " + quote(out.body) + ")");
      }
      break;
    }
    decoder.feed(std::string_view(buf.data(), *n), out.body);
  }
  return out;
}

std::string HttpClient::raw_exchange(std::string_view raw, RawOptions options) {
  const auto deadline = Clock::now() + timeout_;
  const std::string what = "raw exchange (" + std::to_string(raw.size()) + " bytes sent)";
  UniqueFd fd = connect_stream(host_, port_, deadline);
  const SendResult sent = send_all(fd.get(), raw, deadline);
  if (sent == SendResult::timed_out && options.throw_on_timeout) {
    throw std::runtime_error(timed_out(timeout_, "sending", what, {}));
  }
  if (sent == SendResult::ok && options.half_close) ::shutdown(fd.get(), SHUT_WR);
  std::string received;
  std::array<char, 16384> buf{};
  for (;;) {
    const auto n = recv_some(fd.get(), buf.data(), buf.size(), deadline);
    if (!n) {
      if (!options.throw_on_timeout) return received;
      throw std::runtime_error(timed_out(timeout_, "waiting for the server to close the connection in", what, received));
    }
    if (*n == 0) return received;
    received.append(buf.data(), *n);
  }
}

SseReader HttpClient::sse(std::string_view target, const Headers& headers) const {
  Headers all = headers;
  for (const auto& h : default_headers_) {
    if (!has(all, h.first)) all.push_back(h);
  }
  return SseReader(host_, port_, std::string(target), all, timeout_);
}

}  // namespace agentry::test
