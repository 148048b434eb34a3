// The daemon's request path, without sockets: Beast's request parser with the limits
// of HttpServer (16 KiB headers, 1 MiB body), reading one request after another from
// the same buffer as a kept-alive connection does, then agentry's own target handling
// (parse_target, percent_decode) and Router::dispatch on a small route table.
// Any bytes a client can send must end in a response or a refusal, never a crash.

#include "api/beast_request.hpp"
#include "api/http_message.hpp"
#include "api/router.hpp"

#include "fuzz_check.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>

namespace {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace net = boost::asio;
using agentry::api::HttpRequest;
using agentry::api::HttpResponse;

/// The fuzz input as a SyncReadStream: the peer's bytes, then end of file.
class InputStream {
 public:
  explicit InputStream(std::string_view bytes) : rest_(bytes) {}

  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers, boost::system::error_code& ec) {
    if (rest_.empty()) {
      ec = net::error::eof;
      return 0;
    }
    ec = {};
    const std::size_t n = net::buffer_copy(buffers, net::buffer(rest_.data(), rest_.size()));
    rest_.remove_prefix(n);
    return n;
  }
  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers) {
    boost::system::error_code ec;
    const std::size_t n = read_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }

 private:
  std::string_view rest_;
};

HttpResponse echo_params(const HttpRequest& request) {
  boost::json::object params;
  for (const auto& [name, value] : request.params) params[name] = value;
  return agentry::api::json_response(200, params);
}

// A few routes shaped like the daemon's: literal segments, captures, a captured
// segment that may hold "%2F", and one handler that throws.
const agentry::api::Router& router() {
  static const agentry::api::Router table = [] {
    agentry::api::Router r;
    r.add("GET", "/api/runs", echo_params);
    r.add("POST", "/api/runs", echo_params);
    r.add("GET", "/api/runs/:runId", echo_params);
    r.add("DELETE", "/api/runs/:runId", echo_params);
    r.add("PATCH", "/api/runs/:runId/tasks/:taskId", echo_params);
    r.add("GET", "/api/agents/:target", echo_params);
    r.add("GET", "/api/fail/:what", [](const HttpRequest&) -> HttpResponse {
      throw std::runtime_error("handler failure the router must turn into a 500");
    });
    return r;
  }();
  return table;
}

std::string percent_encode(std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out;
}

void check_target_handling(HttpRequest& request) {
  const std::string before_query = request.target.substr(0, request.target.find('?'));
  const bool ok = agentry::api::parse_target(request.target, request.path, request.query);
  if (!ok) return;
  FUZZ_CHECK(request.path == before_query, "the path is the target up to '?', still encoded");

  // Whatever a segment holds, encoding it and decoding it again gives it back.
  bool decoded_ok = true;
  const std::string decoded = agentry::api::percent_decode(request.path, false, decoded_ok);
  if (decoded_ok) {
    FUZZ_CHECK(decoded.size() <= request.path.size(), "decoding never lengthens the text");
    bool round_ok = true;
    FUZZ_CHECK(agentry::api::percent_decode(percent_encode(decoded), false, round_ok) == decoded && round_ok,
               "percent_decode inverts percent-encoding");
  }

  const HttpResponse response = router().dispatch(request);
  const int s = response.status;
  FUZZ_CHECK(s == 200 || s == 400 || s == 404 || s == 405 || s == 500, "the router answers with a known status");
  if (s == 405) {
    const bool has_allow = std::any_of(response.headers.begin(), response.headers.end(),
                                       [](const auto& h) { return h.first == "Allow" && !h.second.empty(); });
    FUZZ_CHECK(has_allow, "a 405 lists the allowed methods");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  InputStream stream(agentry::fuzz::as_text(data, size));
  beast::flat_buffer buffer;  // one buffer per connection, as in session()
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(16 * 1024);
    parser.body_limit(1024 * 1024);
    boost::system::error_code ec;
    http::read_header(stream, buffer, parser, ec);
    if (!ec && !parser.is_done()) http::read(stream, buffer, parser, ec);
    if (ec) return 0;  // the daemon answers 400/413/431 or closes; either way it stops reading

    const auto& req = parser.get();
    HttpRequest request = agentry::api::to_request(req);
    FUZZ_CHECK(request.body.size() <= 1024 * 1024, "bodies stay within the limit");
    if (!request.target.empty() && request.target[0] == '/') check_target_handling(request);
    if (!req.keep_alive()) return 0;
  }
}
