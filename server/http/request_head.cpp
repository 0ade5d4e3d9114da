#include "http/request_head.hpp"

#include <chrono>
#include <iterator>
#include <string_view>

namespace delayq::server::http {
namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

}  // namespace

HttpRequest request_from_head(const RequestParser& parser, const std::string& remote) {
    const auto& head = parser.get();
    HttpRequest request;
    request.method = head.method();
    request.version = head.version();
    request.target = std::string(head.target());
    const std::size_t question = request.target.find('?');
    request.path = request.target.substr(0, question);
    if (question != std::string::npos) request.query = request.target.substr(question + 1);
    request.headers.reserve(static_cast<std::size_t>(std::distance(head.begin(), head.end())));
    for (const auto& field : head) {
        request.headers.emplace_back(lower(field.name_string()), std::string(field.value()));
    }
    if (const auto length = parser.content_length()) request.content_length = *length;
    request.chunked = parser.chunked();
    request.remote = remote;
    request.received = std::chrono::steady_clock::now();
    return request;
}

bool expects_continue(const RequestParser& parser) {
    return lower(parser.get()[boost::beast::http::field::expect]) == "100-continue";
}

std::string endpoint_text(const boost::asio::ip::tcp::socket& socket) {
    boost::system::error_code ec;
    const auto ep = socket.remote_endpoint(ec);
    if (ec) return "?";
    const std::string address = ep.address().to_string();
    return (ep.address().is_v6() ? "[" + address + "]" : address) + ":" + std::to_string(ep.port());
}

}  // namespace delayq::server::http
