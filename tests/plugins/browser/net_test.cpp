// The runtime's network pieces (plugins/common, agentry_plugin_net) that the browser's
// model calls stand on: URLs parsed by Boost.URL with what a client cannot use refused,
// and HTTPS checking the server's certificate and name.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <future>
#include <string>

#include "agentry/plugin_common/runtime/executor.hpp"
#include "agentry/plugin_common/runtime/http.hpp"
#include "agentry/plugin_common/runtime/url.hpp"
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

namespace agentry::plugin_common::runtime {
namespace {

TEST(ParseNetUrl, SplitsHostPortAndTarget) {
  std::string error;
  auto u = parse_net_url("http://127.0.0.1:8080/v1", {"http", "https"}, error);
  ASSERT_TRUE(u) << error;
  EXPECT_FALSE(u->tls());
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, "8080");
  EXPECT_EQ(u->target, "/v1");
  u = parse_net_url("HTTPS://api.example.org", {"http", "https"}, error);
  ASSERT_TRUE(u) << error;
  EXPECT_TRUE(u->tls());
  EXPECT_EQ(u->port, "443");
  EXPECT_EQ(u->target, "/");
  u = parse_net_url("http://[::1]:9/x?y=1", {"http", "https"}, error);
  ASSERT_TRUE(u) << error;
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->target, "/x?y=1");
  u = parse_net_url("http://h?q", {"http", "https"}, error);
  ASSERT_TRUE(u) << error;
  EXPECT_EQ(u->target, "/?q");
}

TEST(ParseNetUrl, RefusesWhatItCannotUse) {
  for (const char* bad : {"ftp://h/", "h:80", "http://user:pw@h/", "http://h/#frag", "http://h:0/", "http://h:70000/",
                          "http://h:8o/", "http:///path", "http://[::1/"}) {
    std::string error;
    EXPECT_FALSE(parse_net_url(bad, {"http", "https"}, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

// A loopback HTTPS server (Python's http.server over ssl) with a certificate made for the
// test; every POST is answered with the size of its body.
constexpr const char* kTlsServer = R"PY(
import http.server, json, ssl, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        data = json.dumps({"received": len(body)}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), H)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
)PY";

TEST(HttpClient, HttpsChecksTheServersCertificate) {
  if (::access("/usr/bin/openssl", X_OK) != 0 || ::access("/usr/bin/python3", X_OK) != 0)
    GTEST_SKIP() << "needs /usr/bin/openssl and /usr/bin/python3";
  test::TempDir dir;
  const std::string cert = (dir.path() / "cert.pem").string(), key = (dir.path() / "key.pem").string();
  const std::string make = "/usr/bin/openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
                           "-addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout " + key + " -out " + cert +
                           " >/dev/null 2>&1";
  ASSERT_EQ(std::system(make.c_str()), 0);
  dir.write_file("server.py", kTlsServer);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  test::SpawnOptions options;
  options.argv = {"/usr/bin/python3", (dir.path() / "server.py").string(), cert, key};
  options.stdout_fd = fds[1];
  options.new_process_group = true;
  options.die_with_parent = true;
  const pid_t server = test::spawn_process(options);
  ::close(fds[1]);
  std::string port;
  char c = 0;
  while (::read(fds[0], &c, 1) == 1 && c != '\n') port.push_back(c);
  ::close(fds[0]);
  ASSERT_FALSE(port.empty());

  const auto post = [](const HttpRequest& request) {
    Executor executor;
    std::promise<HttpResponse> answered;
    executor.post([&] { http_post(executor.get_executor(), request, [&](HttpResponse r) { answered.set_value(std::move(r)); }); });
    return answered.get_future().get();
  };
  HttpRequest request;
  request.body = "{\"x\": 1}";
  request.timeout = std::chrono::milliseconds(10000);
  // Not signed by a trusted CA: refused during the handshake.
  ::unsetenv("SSL_CERT_FILE");
  request.url = "https://localhost:" + port + "/v1/responses";
  HttpResponse r = post(request);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.error.find("certificate verify failed"), std::string::npos) << r.error;
  // Trusted (OpenSSL reads SSL_CERT_FILE when the client loads the default paths): by name
  // and by address, each checked against the certificate's names.
  ::setenv("SSL_CERT_FILE", cert.c_str(), 1);
  for (const std::string host : {"localhost", "127.0.0.1"}) {
    request.url = "https://" + host + ":" + port + "/v1/responses";
    r = post(request);
    EXPECT_EQ(r.status, 200) << host << ": " << r.error;
    EXPECT_EQ(r.body, R"({"received": 8})") << host;
  }
  ::unsetenv("SSL_CERT_FILE");
  test::stop_process_group(server);
}

TEST(ParseNetUrl, FitsAWebSocketAddress) {
  std::string error;
  auto u = parse_net_url("ws://[::1]:4500", {"ws"}, error);
  ASSERT_TRUE(u) << error;
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, "4500");
  EXPECT_TRUE(u->port_given);
  EXPECT_EQ(u->target, "/");
  EXPECT_EQ(u->host_header(), "[::1]:4500");
  u = parse_net_url("ws://localhost/rpc", {"ws"}, error);
  ASSERT_TRUE(u) << error;
  EXPECT_FALSE(u->port_given);
  EXPECT_EQ(u->port, "80");
  EXPECT_EQ(u->host_header(), "localhost");
  UrlProblem problem{};
  EXPECT_FALSE(parse_net_url("wss://h:1/", {"ws"}, error, &problem));
  EXPECT_EQ(problem, UrlProblem::scheme);
  EXPECT_EQ(error, "must begin with ws://");
  EXPECT_FALSE(parse_net_url("http://u@h/", {"http", "https"}, error, &problem));
  EXPECT_EQ(problem, UrlProblem::user_info);
  EXPECT_FALSE(parse_net_url("ftp://h/", {"http", "https", "ws"}, error));
  EXPECT_EQ(error, "must begin with http://, https:// or ws://");
}

}  // namespace
}  // namespace agentry::plugin_common::runtime
