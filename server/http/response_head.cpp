#include "http/response_head.hpp"

#include <boost/beast/http/status.hpp>
#include <string_view>

namespace delayq::server::http {
namespace {

// Header values are the server's own, never a client's; still, a CR or LF in one would end
// the field early, so none gets through.
void append_field(std::string& out, std::string_view name, std::string_view value) {
    out.append(name);
    out.append(": ");
    for (const char c : value) out.push_back(c == '\r' || c == '\n' ? ' ' : c);
    out.append("\r\n");
}

}  // namespace

std::string response_head(const HttpResponse& response, bool keep_alive) {
    const auto status = static_cast<boost::beast::http::status>(response.status);
    std::string out;
    out.reserve(128);
    out.append("HTTP/1.1 ");
    out.append(std::to_string(response.status));
    out.push_back(' ');
    out.append(boost::beast::http::obsolete_reason(status));
    out.append("\r\n");
    // A 204 has no content to type, and RFC 9110 (8.6) forbids its Content-Length.
    const bool content = response.status != 204;
    if (content) append_field(out, "Content-Type", response.content_type);
    for (const auto& [name, value] : response.headers) append_field(out, name, value);
    if (content) append_field(out, "Content-Length", std::to_string(response.body.size()));
    if (!keep_alive) append_field(out, "Connection", "close");
    out.append("\r\n");
    return out;
}

}  // namespace delayq::server::http
