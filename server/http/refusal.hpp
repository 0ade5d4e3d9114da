#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/system/error_code.hpp>
#include <memory>
#include <optional>

#include "http/limits.hpp"
#include "http/message.hpp"

// Connections the server ends before their client does.
namespace delayq::server::http {

// Closing a socket with unread input resets the connection, and the client may lose the answer
// before reading it (a 413 sent while the body still arrives). So: ends our side, reads and
// drops what the client still sends until it closes too or a short while passes, then closes.
void drain_then_close(std::shared_ptr<boost::beast::tcp_stream> stream);

// The answers to a request the server cannot read, after which it closes the connection: 413 for
// a head or body over its limit, 400 for what is not HTTP/1.1.
HttpResponse too_large_response();
HttpResponse not_http11_response();
// What the server says when reading a request's head, or its body, failed with `ec` (not 0): the
// answer above, or nothing when the client went away or fell silent, or the server stops, and
// the connection is only closed.
std::optional<HttpResponse> head_failure_response(boost::system::error_code ec);
std::optional<HttpResponse> body_failure_response(boost::system::error_code ec);
// 503 to a request whose body found no room in the server's budget within the read timeout.
HttpResponse server_busy_response();

// Answers 503 to a connection beyond the cap, then closes it.
void refuse_connection(boost::asio::ip::tcp::socket socket, const HttpLimits& limits);

}  // namespace delayq::server::http
