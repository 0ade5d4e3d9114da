#include "http/session.hpp"

#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>
#include <exception>
#include <functional>
#include <utility>

#include "http/access_log.hpp"
#include "http/connections.hpp"
#include "http/dispatcher.hpp"
#include "http/refusal.hpp"
#include "http/request_head.hpp"
#include "http/response_head.hpp"

namespace delayq::server::http {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;

// What a watch reads at most: the start of a next request sent before its answer (pipelined).
constexpr std::size_t kWatchBytes = 4096;

}  // namespace

template <class Stream>
BasicSession<Stream>::BasicSession(Stream stream, const SessionParts& parts)
    : stream_(std::move(stream)),
      limits_(parts.limits),
      parts_(parts),
      remote_(endpoint_text(tcp().socket())) {}

template <class Stream>
BasicSession<Stream>::~BasicSession() {
    // A reservation granted while this session went is released by its callback, which finds
    // the session gone.
    if (ticket_ != 0) parts_.bodies.cancel(ticket_);
    release_body();
    if (id_ != 0) parts_.connections.remove(id_);
}

template <class Stream>
void BasicSession<Stream>::start() {
    id_ = stream_.enter(parts_.connections, this->shared_from_this());
    if (id_ == 0) {
        // The cap was reached between the acceptor's check and now, or the server is stopping.
        stream_.turn_away(limits_);
        return;
    }
    net::dispatch(stream().get_executor(), [self = this->shared_from_this()] { self->open(); });
}

template <class Stream>
void BasicSession<Stream>::stop() {
    net::post(stream().get_executor(), [self = this->shared_from_this()] {
        self->stopping_ = true;
        if (self->idle_) self->tcp().cancel();
    });
}

// The handshake, if the stream has one; the connection takes its slot once it is done.
template <class Stream>
void BasicSession<Stream>::open() {
    if (stopping_) return close();
    idle_ = true;
    stream_.open(limits_.handshake_timeout,
                 [self = this->shared_from_this()](beast::error_code ec) { self->on_open(ec); });
}

template <class Stream>
void BasicSession<Stream>::on_open(beast::error_code ec) {
    idle_ = false;
    if (ec) {
        spdlog::debug("http: TLS handshake with {} failed: {}", remote_, ec.message());
        return close();
    }
    if (!stream_.admit(parts_.connections, id_)) {
        spdlog::debug("http: connection from {} closed: the connections' cap is reached", remote_);
        return close();
    }
    read_head();
}

template <class Stream>
void BasicSession<Stream>::read_head() {
    if (stopping_) return close();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(limits_.max_header_bytes));
    parser_->body_limit(limits_.max_body_bytes);
    idle_ = true;
    tcp().expires_after(limits_.idle_timeout);
    bhttp::async_read_header(stream(), buffer_, *parser_,
                             [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                                 self->on_head(ec);
                             });
}

template <class Stream>
void BasicSession<Stream>::on_head(beast::error_code ec) {
    idle_ = false;
    started_ = std::chrono::steady_clock::now();
    // Until the head is read, nothing is known of the request (the access log says "-").
    method_ = "-";
    target_.clear();
    bytes_in_ = 0;
    head_only_ = false;
    if (ec) {
        // Anything but a refusal: the client went away, fell silent, or the server stops.
        if (auto refusal = head_failure_response(ec)) return answer_and_close(std::move(*refusal));
        return close();
    }
    const auto& head = parser_->get();
    method_ = std::string(head.method_string());
    target_ = std::string(head.target());
    keep_alive_ = head.keep_alive();
    request_ = std::make_unique<HttpRequest>(request_from_head(*parser_, remote_));
    head_only_ = request_->method == Verb::head;
    Dispatcher::Admission admission = parts_.dispatcher.admit(*request_);
    if (admission.refusal) {
        // The body, if any, is never read: the connection cannot go on after it.
        if (admission.close || !parser_->is_done()) {
            return answer_and_close(std::move(*admission.refusal));
        }
        return answer(std::move(*admission.refusal));
    }
    route_ = admission.route;
    if (parser_->is_done()) return handle();
    const std::size_t limit = route_->max_body;
    if (request_->content_length && *request_->content_length > limit) {
        return answer_and_close(too_large_response());
    }
    parser_->body_limit(limit);
    // A chunked body's length is known only at its end: it is held to the route's limit.
    reserve_body(request_->content_length ? static_cast<std::size_t>(*request_->content_length)
                                          : limit);
}

template <class Stream>
void BasicSession<Stream>::handle() {
    HttpRequest request = std::move(*request_);
    request_.reset();
    request.body = std::move(parser_->get().body());
    keep_alive_ = parser_->get().keep_alive();
    // The parser holds the head's fields, an allocation each: gone before a long-poll waits
    // (10,000 idle polls held 7 MiB more with them).
    parser_.reset();
    bytes_in_ = request.body.size();
    request.client = watch_.arm([weak = this->weak_from_this()] {
        if (auto self = weak.lock()) {
            net::post(self->stream().get_executor(), [self] { self->watch_client(); });
        }
    });

    // A handler may hold the connection for long (a long-poll): no timeout until it answers.
    tcp().expires_never();
    auto answered = std::make_shared<std::atomic<bool>>(false);
    Reply reply = [self = this->shared_from_this(), answered](HttpResponse response) {
        if (answered->exchange(true)) return;  // answered already: a bug, but never twice
        net::post(self->stream().get_executor(),
                  [self, r = std::move(response)]() mutable { self->answer(std::move(r)); });
    };
    try {
        route_->handle(std::move(request), reply);
    } catch (...) {
        reply(problem_response(problem_from(std::current_exception())));
    }
}

// A read while the handler holds the request: it ends with an error when the client closes or
// resets the connection, with bytes when the client sends its next request early (kept for
// read_head), or cancelled once the answer is written.
template <class Stream>
void BasicSession<Stream>::watch_client() {
    if (!watch_.start_read()) return;
    stream().async_read_some(
        buffer_.prepare(kWatchBytes),
        [self = this->shared_from_this()](beast::error_code ec, std::size_t bytes) {
            self->on_watch(ec, bytes);
        });
}

template <class Stream>
void BasicSession<Stream>::on_watch(beast::error_code ec, std::size_t bytes) {
    if (!ec) buffer_.commit(bytes);
    switch (watch_.read_ended(ec && ec != net::error::operation_aborted)) {
        case SessionWatch::Next::kReadNext:
            return read_head();
        case SessionWatch::Next::kClose:
            return close();
        case SessionWatch::Next::kClientGone:
            // No answer will be written.
            keep_alive_ = false;
            return tcp().close();
        case SessionWatch::Next::kNothing:
            return;
    }
}

template <class Stream>
void BasicSession<Stream>::answer(HttpResponse r) {
    watch_.answered();
    release_body();
    const bool close_after = !keep_alive_ || stopping_;
    // The head says the Content-Length of the body a GET would get (RFC 9110 9.3.2); an answer
    // to HEAD, a refusal too, has no body (RFC 9112 6.3).
    out_head_ = response_head(r, !close_after);
    out_body_ = head_only_ ? std::string() : std::move(r.body);
    log_access({.method = method_,
                .target = target_,
                .remote = remote_,
                .principal = r.principal,
                .status = r.status,
                .bytes_in = bytes_in_,
                .bytes_out = out_body_.size(),
                .duration = std::chrono::steady_clock::now() - started_});
    tcp().expires_after(limits_.write_timeout);
    const std::array<net::const_buffer, 2> buffers{net::buffer(out_head_), net::buffer(out_body_)};
    net::async_write(stream(), buffers,
                     [self = this->shared_from_this(), close_after](
                         beast::error_code ec, std::size_t) { self->on_write(ec, close_after); });
}

template <class Stream>
void BasicSession<Stream>::answer_and_close(HttpResponse response) {
    keep_alive_ = false;
    drain_on_close_ = true;
    answer(std::move(response));
}

template <class Stream>
void BasicSession<Stream>::on_write(beast::error_code ec, bool close_after) {
    // Only one read at a time: a pending watch ends first, then the connection goes on.
    if (watch_.wait_for_read(ec || close_after)) return tcp().cancel();
    if (ec || close_after) return close();
    read_head();
}

template <class Stream>
void BasicSession<Stream>::close() {
    if (drain_on_close_) {
        // Of a TLS connection too: what the client still sends is read and dropped unread.
        drain_then_close(std::make_shared<beast::tcp_stream>(tcp().release_socket()));
        return;
    }
    stream_.close(this->shared_from_this());
}

template class BasicSession<PlainStream>;
template class BasicSession<TlsStream>;

}  // namespace delayq::server::http
