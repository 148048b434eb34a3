#pragma once
// The stream a served connection is read and written through, whichever listener it
// came in on: the TCP port or the Unix socket (http_server.cpp). One protocol-generic
// type, so that one code path serves HTTP, Server-Sent Events and WebSocket JSON-RPC
// over both, and nothing downstream can tell them apart. What only TCP has
// (TCP_NODELAY) is set where a connection is accepted, for TCP connections alone.
// Internal to the server's translation units.

#include <boost/asio/basic_socket_acceptor.hpp>
#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/beast/core/basic_stream.hpp>

namespace agentry::api {

/// A stream protocol chosen at run time: TCP (IPv4, IPv6) or a Unix domain socket.
using ServedProtocol = boost::asio::generic::stream_protocol;
using ServedSocket = ServedProtocol::socket;
using ServedAcceptor = boost::asio::basic_socket_acceptor<ServedProtocol>;
/// Beast's stream (timeouts, rate policy) over either kind of socket.
using ServedStream = boost::beast::basic_stream<ServedProtocol>;

}  // namespace agentry::api
