#pragma once

#include <string>

#include "http/message.hpp"

namespace delayq::server::http {

// The status line and header fields of an HTTP/1.1 answer, through the blank line: the
// content type, the response's own headers, Content-Length, and "Connection: close" unless the
// connection stays open. Written by hand because every answer the server gives has this one
// shape, and Beast's general serializer cost a tenth of a small request's CPU.
std::string response_head(const HttpResponse& response, bool keep_alive);

}  // namespace delayq::server::http
