#include "keep_alive_connection.hpp"

#include "support/http_wire.hpp"

#include <optional>
#include <stdexcept>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace agentry::bench {

KeepAliveConnection::KeepAliveConnection(std::string host, std::uint16_t port, std::string bearer_token)
    : host_(std::move(host)), port_(port) {
  head_extra_ = "Host: " + test::host_header(host_, port_) + "\r\n";
  if (!bearer_token.empty()) head_extra_ += "Authorization: Bearer " + bearer_token + "\r\n";
  fd_ = test::connect_tcp(host_, port_, test::Clock::now() + std::chrono::seconds(5));
  int one = 1;
  ::setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int KeepAliveConnection::request(std::string_view method, std::string_view target, std::string_view payload,
                                 std::string& body) {
  const auto deadline = test::Clock::now() + std::chrono::seconds(10);
  std::string request;
  request.reserve(128 + head_extra_.size() + payload.size());
  request.append(method).append(" ").append(target).append(" HTTP/1.1\r\n").append(head_extra_);
  if (!payload.empty() || method == "POST")
    request.append("Content-Type: application/json\r\nContent-Length: ")
        .append(std::to_string(payload.size()))
        .append("\r\n");
  request.append("\r\n").append(payload);
  if (test::send_all(fd_.get(), request, deadline) != test::SendResult::ok)
    throw std::runtime_error("the daemon closed the connection");
  std::string in;
  char buf[16384];
  std::optional<std::size_t> head_end;
  while (!(head_end = test::find_head_end(in))) in.append(buf, receive(buf, sizeof buf, deadline));
  auto head = test::parse_response_head(std::string_view(in).substr(0, *head_end));
  auto decoder = test::BodyDecoder::for_response(head, method);
  body.clear();
  decoder.feed(std::string_view(in).substr(*head_end), body);
  while (!decoder.done()) decoder.feed(std::string_view(buf, receive(buf, sizeof buf, deadline)), body);
  return head.status;
}

std::size_t KeepAliveConnection::receive(char* buf, std::size_t size, test::Clock::time_point deadline) {
  auto n = test::recv_some(fd_.get(), buf, size, deadline);
  if (!n) throw std::runtime_error("timed out waiting for the daemon");
  if (*n == 0) throw std::runtime_error("the daemon closed the connection");
  return *n;
}

}  // namespace agentry::bench
