#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <memory>

#include "http/limits.hpp"

// Connections the server ends before their client does.
namespace delayq::server::http {

// Closing a socket with unread input resets the connection, and the client may lose the answer
// before reading it (a 413 sent while the body still arrives). So: ends our side, reads and
// drops what the client still sends until it closes too or a short while passes, then closes.
void drain_then_close(std::shared_ptr<boost::beast::tcp_stream> stream);

// Answers 503 to a connection beyond the cap, then closes it.
void refuse_connection(boost::asio::ip::tcp::socket socket, const HttpLimits& limits);

}  // namespace delayq::server::http
