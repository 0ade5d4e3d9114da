// A session's request body: reserved from the server's budget of body bytes (or waited for,
// within the read timeout), `100 Continue` sent only then, read within the route's limit.
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>
#include <string_view>
#include <utility>

#include "http/refusal.hpp"
#include "http/request_head.hpp"
#include "http/session.hpp"

namespace delayq::server::http {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

}  // namespace

template <class Stream>
void BasicSession<Stream>::reserve_body(std::size_t bytes) {
    BodyBudget& budget = parts_.bodies;
    ticket_ = budget.reserve(bytes, [weak = this->weak_from_this(), bytes, &budget] {
        if (auto self = weak.lock()) {
            net::post(self->stream().get_executor(), [self, bytes] { self->on_reserved(bytes); });
        } else {
            budget.release(bytes);
        }
    });
    if (ticket_ == 0) {
        reserved_ = bytes;
        return continue_body();
    }
    // Waiting for other bodies to be answered: within the read timeout, then 503.
    if (!budget_wait_) budget_wait_ = std::make_unique<net::steady_timer>(stream().get_executor());
    budget_wait_->expires_after(limits_.read_timeout);
    budget_wait_->async_wait([self = this->shared_from_this()](beast::error_code wec) {
        if (wec || self->ticket_ == 0 || !self->parts_.bodies.time_out(self->ticket_)) return;
        self->ticket_ = 0;
        self->answer_and_close(server_busy_response());
    });
}

template <class Stream>
void BasicSession<Stream>::on_reserved(std::size_t bytes) {
    ticket_ = 0;
    reserved_ = bytes;
    if (budget_wait_) budget_wait_->cancel();
    continue_body();
}

template <class Stream>
void BasicSession<Stream>::release_body() {
    if (reserved_ == 0) return;
    parts_.bodies.release(std::exchange(reserved_, 0));
}

// The client that asked for `100 Continue` is told to send its body only now that the server
// takes it.
template <class Stream>
void BasicSession<Stream>::continue_body() {
    if (expects_continue(*parser_)) {
        tcp().expires_after(limits_.write_timeout);
        net::async_write(stream(), net::buffer(kContinue.data(), kContinue.size()),
                         [self = this->shared_from_this()](beast::error_code wec, std::size_t) {
                             if (wec) return self->close();
                             self->read_body();
                         });
        return;
    }
    read_body();
}

template <class Stream>
void BasicSession<Stream>::read_body() {
    tcp().expires_after(limits_.read_timeout);
    bhttp::async_read(stream(), buffer_, *parser_,
                      [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                          self->on_body(ec);
                      });
}

template <class Stream>
void BasicSession<Stream>::on_body(beast::error_code ec) {
    if (ec) {
        if (auto refusal = body_failure_response(ec)) return answer_and_close(std::move(*refusal));
        return close();
    }
    handle();
}

// session.cpp instantiates the class; these are the members defined here. Named by template-id:
// an explicit instantiation through an alias is ill-formed (GCC takes it, clang does not).
template void BasicSession<PlainStream>::reserve_body(std::size_t);
template void BasicSession<PlainStream>::on_reserved(std::size_t);
template void BasicSession<PlainStream>::release_body();
template void BasicSession<PlainStream>::continue_body();
template void BasicSession<PlainStream>::read_body();
template void BasicSession<PlainStream>::on_body(beast::error_code);
template void BasicSession<TlsStream>::reserve_body(std::size_t);
template void BasicSession<TlsStream>::on_reserved(std::size_t);
template void BasicSession<TlsStream>::release_body();
template void BasicSession<TlsStream>::continue_body();
template void BasicSession<TlsStream>::read_body();
template void BasicSession<TlsStream>::on_body(beast::error_code);

}  // namespace delayq::server::http
