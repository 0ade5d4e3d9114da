#pragma once

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "http/body_budget.hpp"
#include "http/client_watch.hpp"
#include "http/limits.hpp"
#include "http/message.hpp"
#include "http/request_head.hpp"
#include "http/stream.hpp"

namespace delayq::server::http {

class Connections;
class Dispatcher;
struct Route;

// What every session of a server shares; the server owns them, and they outlive its sessions.
struct SessionParts {
    const HttpLimits& limits;
    const Dispatcher& dispatcher;
    Connections& connections;
    BodyBudget& bodies;
};

// A client connection as the server's Connections see it.
class Session {
  public:
    virtual ~Session() = default;
    // A graceful stop: an idle connection closes now, a busy one after its answer is written.
    virtual void stop() = 0;
};

// One client connection over `Stream` (PlainStream, or TlsStream: stream.hpp, which holds all
// they do differently): reads a request's head and asks the Dispatcher whether to take it; reads
// the body only then (within the route's limit and the server's budget of body bytes, and only
// then answers `Expect: 100-continue`); hands the request to its route, writes the answer, and
// again while the client keeps the connection alive. Everything runs on the connection's I/O
// thread (IoPool); a handler answers from any thread through its Reply, which posts back to that
// thread.
template <class Stream>
class BasicSession final : public Session,
                           public std::enable_shared_from_this<BasicSession<Stream>> {
  public:
    BasicSession(Stream stream, const SessionParts& parts);
    ~BasicSession() override;
    BasicSession(const BasicSession&) = delete;
    BasicSession& operator=(const BasicSession&) = delete;

    void start();
    void stop() override;

  private:
    void open();
    void on_open(boost::beast::error_code ec);
    void read_head();
    void on_head(boost::beast::error_code ec);
    void reserve_body(std::size_t bytes);
    void on_reserved(std::size_t bytes);
    void continue_body();
    void read_body();
    void on_body(boost::beast::error_code ec);
    void handle();
    void watch_client();
    void on_watch(boost::beast::error_code ec, std::size_t bytes);
    void answer(HttpResponse response);
    void answer_and_close(HttpResponse response);
    void release_body();
    void on_write(boost::beast::error_code ec, bool close);
    void close();
    auto& stream() { return stream_.stream(); }
    boost::beast::tcp_stream& tcp() { return stream_.tcp(); }

    Stream stream_;
    boost::beast::flat_buffer buffer_;
    std::optional<RequestParser> parser_;
    const HttpLimits& limits_;
    const SessionParts& parts_;
    std::uint64_t id_ = 0;
    std::string remote_;
    bool idle_ = false;      // waiting for the handshake, or the first byte of a request
    bool stopping_ = false;  // finish the request under way, then close
    bool keep_alive_ = false;
    bool drain_on_close_ = false;  // the client may still be sending: read it out first
    bool head_only_ = false;       // the request is HEAD: its answer is written without a body
    // A handler holding the request may ask to learn of the client's close: a read is pending
    // then until the client closes, sends its next request, or the answer is written.
    SessionWatch watch_;
    // The request being read: its head (and then its body), and the route that admitted it.
    // Held apart, and only while it is read: a long-poll's connection waits without it (10,000
    // of them held 3 MiB more with the request and the timer below in the session).
    std::unique_ptr<HttpRequest> request_;
    const Route* route_ = nullptr;
    // Bytes of the server's body budget: reserved for this request's body until it is answered,
    // or the ticket of a reservation waiting for them (the wait ends at the read timeout).
    std::size_t reserved_ = 0;
    BodyBudget::Ticket ticket_ = 0;
    std::unique_ptr<boost::asio::steady_timer> budget_wait_;  // made on the first wait
    // Of the request being handled, for the access log.
    std::string method_;
    std::string target_;
    std::size_t bytes_in_ = 0;
    // The answer being written.
    std::string out_head_;
    std::string out_body_;
    std::chrono::steady_clock::time_point started_{};
};

using PlainSession = BasicSession<PlainStream>;
using TlsSession = BasicSession<TlsStream>;

}  // namespace delayq::server::http
