#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <string>

#include "http/message.hpp"

// The request's head as the session reads it, turned into what the dispatcher and the routes
// see: apart from the session, which only moves bytes.
namespace delayq::server::http {

using RequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;

// The head as the routes see it, without the body (read once the head is admitted): header
// names in lower case, the target split into path and query.
HttpRequest request_from_head(const RequestParser& parser, const std::string& remote);

// Whether the client waits for `100 Continue` before it sends its body.
bool expects_continue(const RequestParser& parser);

// "address:port" of the socket's peer ("[v6]:port"), or "?" when it is gone.
std::string endpoint_text(const boost::asio::ip::tcp::socket& socket);

}  // namespace delayq::server::http
