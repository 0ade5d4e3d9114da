#include "server/support/http_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <stdexcept>

namespace delayq::test {
namespace {

namespace net = boost::asio;
namespace bhttp = boost::beast::http;
using Tcp = net::ip::tcp;

std::string lower(std::string text) {
    for (char& c : text) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return text;
}

}  // namespace

std::string HttpResult::code() const {
    const auto j = nlohmann::json::parse(body, nullptr, false);
    return j.is_object() && j.contains("code") ? j["code"].get<std::string>() : "";
}

std::optional<std::string> HttpResult::header(const std::string& lower_name) const {
    for (const auto& [name, value] : headers) {
        if (name == lower_name) return value;
    }
    return std::nullopt;
}

struct HttpClient::Impl {
    net::io_context io;
    Tcp::socket socket{io};
    boost::beast::flat_buffer buffer;
    bool closing = false;  // the last answer said `Connection: close`

    void connect(std::uint16_t port) {
        boost::system::error_code ec;
        socket.close(ec);
        buffer.clear();
        socket.connect(Tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
        closing = false;
    }
};

HttpClient::HttpClient(std::uint16_t port) : impl_(std::make_unique<Impl>()), port_(port) {
    impl_->connect(port);
}

HttpClient::~HttpClient() = default;

HttpResult HttpClient::request(const HttpRequestSpec& spec) {
    bhttp::request<bhttp::string_body> req(bhttp::string_to_verb(spec.method), spec.target, 11);
    req.set(bhttp::field::host, spec.host.value_or("127.0.0.1:" + std::to_string(port_)));
    if (!spec.token.empty()) req.set(bhttp::field::authorization, "Bearer " + spec.token);
    for (const auto& [name, value] : spec.headers) req.set(name, value);
    // As clients of a JSON API do: every POST says it is JSON, body or not.
    if ((spec.body || spec.method == "POST") && !spec.content_type.empty()) {
        req.set(bhttp::field::content_type, spec.content_type);
    }
    if (spec.body) req.body() = *spec.body;
    if (req.find(bhttp::field::connection) == req.end()) req.keep_alive(true);
    req.prepare_payload();
    // As clients do: a connection the server said it closes is not used again.
    if (impl_->closing) impl_->connect(port_);
    bhttp::write(impl_->socket, req);
    return read_answer(req.method() == bhttp::verb::head);
}

HttpResult HttpClient::get(const std::string& target, const std::string& token) {
    return request({.method = "GET", .target = target, .token = token});
}

HttpResult HttpClient::post(const std::string& target, const nlohmann::json& body,
                            const std::string& token) {
    return request({.method = "POST", .target = target, .body = body.dump(), .token = token});
}

HttpResult HttpClient::del(const std::string& target, const std::string& token) {
    return request({.method = "DELETE", .target = target, .token = token});
}

void HttpClient::send_raw(const std::string& bytes) {
    net::write(impl_->socket, net::buffer(bytes));
}

HttpResult HttpClient::read_answer(bool head_request) {
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(std::uint64_t{64} * 1024 * 1024);
    parser.skip(head_request);
    boost::beast::error_code ec;
    bhttp::read(impl_->socket, impl_->buffer, parser, ec);
    if (ec) throw std::runtime_error("no answer from the server: " + ec.message());
    auto res = parser.release();
    HttpResult out;
    out.status = res.result_int();
    out.body = res.body();
    out.keep_alive = res.keep_alive();
    impl_->closing = !out.keep_alive;
    for (const auto& f : res) {
        out.headers.emplace_back(lower(std::string(f.name_string())), std::string(f.value()));
    }
    return out;
}

bool HttpClient::closed_by_server() {
    char byte = 0;
    boost::system::error_code ec;
    impl_->socket.read_some(net::buffer(&byte, 1), ec);
    return ec == net::error::eof || ec == net::error::connection_reset;
}

void HttpClient::close() {
    boost::system::error_code ec;
    impl_->socket.close(ec);
}

bool can_connect(std::uint16_t port) {
    net::io_context io;
    Tcp::socket socket(io);
    boost::system::error_code ec;
    socket.connect(Tcp::endpoint(net::ip::make_address("127.0.0.1"), port), ec);
    return !ec;
}

}  // namespace delayq::test
