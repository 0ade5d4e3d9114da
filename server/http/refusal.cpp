#include "http/refusal.hpp"

#include <array>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <string>

#include "api/problem.hpp"
#include "http/message.hpp"
#include "http/response_head.hpp"

namespace delayq::server::http {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;

constexpr auto kLinger = std::chrono::seconds(2);

// Owned only by its pending read, so that it goes with the I/O context if the server stops.
class Drain : public std::enable_shared_from_this<Drain> {
  public:
    explicit Drain(std::shared_ptr<beast::tcp_stream> stream) : stream_(std::move(stream)) {}

    void start() {
        beast::error_code ec;
        stream_->socket().shutdown(net::ip::tcp::socket::shutdown_send, ec);
        stream_->expires_after(kLinger);
        read();
    }

  private:
    void read() {
        stream_->async_read_some(net::buffer(sink_),
                                 [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                     if (ec) return self->stream_->close();
                                     self->read();
                                 });
    }

    std::shared_ptr<beast::tcp_stream> stream_;
    std::array<char, 4096> sink_{};
};

// A connection beyond the cap: a fixed 503, then closed.
struct Refusal {
    explicit Refusal(net::ip::tcp::socket socket)
        : stream(std::make_shared<beast::tcp_stream>(std::move(socket))) {}
    std::shared_ptr<beast::tcp_stream> stream;
    std::string text;
};

}  // namespace

void drain_then_close(std::shared_ptr<beast::tcp_stream> stream) {
    std::make_shared<Drain>(std::move(stream))->start();
}

void refuse_connection(net::ip::tcp::socket socket, const HttpLimits& limits) {
    auto refusal = std::make_shared<Refusal>(std::move(socket));
    HttpResponse r =
        problem_response({503, "too_many_connections",
                          "the server holds as many connections as it takes; try again"});
    refusal->text = response_head(r, false) + r.body;
    refusal->stream->expires_after(limits.write_timeout);
    net::async_write(
        *refusal->stream, net::buffer(refusal->text),
        [refusal](beast::error_code, std::size_t) { drain_then_close(refusal->stream); });
}

HttpResponse too_large_response() {
    return problem_response(
        {413, "payload_too_large", "the request's head or body is larger than the server takes"});
}

HttpResponse not_http11_response() {
    return problem_response(bad_request("the request is not valid HTTP/1.1"));
}

std::optional<HttpResponse> head_failure_response(boost::system::error_code ec) {
    if (ec == bhttp::error::body_limit || ec == bhttp::error::header_limit) {
        return too_large_response();
    }
    if (ec == bhttp::error::bad_method || ec == bhttp::error::bad_target ||
        ec == bhttp::error::bad_version || ec == bhttp::error::bad_field ||
        ec == bhttp::error::bad_value || ec == bhttp::error::bad_content_length ||
        ec == bhttp::error::bad_transfer_encoding) {
        return not_http11_response();
    }
    return std::nullopt;
}

std::optional<HttpResponse> body_failure_response(boost::system::error_code ec) {
    if (ec == bhttp::error::body_limit) return too_large_response();
    if (ec == bhttp::error::partial_message || ec == beast::error::timeout ||
        ec == net::error::eof || ec == net::error::operation_aborted ||
        ec == net::error::connection_reset || ec == net::ssl::error::stream_truncated) {
        return std::nullopt;
    }
    return not_http11_response();
}

HttpResponse server_busy_response() {
    return problem_response(
        {503, "server_busy",
         "the server is reading as many request bodies as it takes; try again"});
}

}  // namespace delayq::server::http
