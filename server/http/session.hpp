#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include "http/limits.hpp"
#include "http/message.hpp"

namespace delayq::server::http {

class Connections;

// One client connection: reads a request, hands it to `dispatch`, writes the answer, and again
// while the client keeps the connection alive. Everything runs on the connection's strand; a
// handler answers from any thread through its Reply, which posts back to the strand.
class Session : public std::enable_shared_from_this<Session> {
  public:
    Session(boost::asio::ip::tcp::socket socket, const HttpLimits& limits, const Handler& dispatch,
            Connections& connections);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    void start();
    // A graceful stop: an idle connection closes now, a busy one after its answer is written.
    void stop();

  private:
    void read_head();
    void on_head(boost::beast::error_code ec);
    void read_body();
    void on_body(boost::beast::error_code ec);
    void handle();
    void answer(HttpResponse response);
    void answer_and_close(const Problem& problem);
    void on_write(boost::beast::error_code ec, bool close);
    void close();

    boost::beast::tcp_stream stream_;
    boost::beast::flat_buffer buffer_;
    std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
    const HttpLimits& limits_;
    const Handler& dispatch_;
    Connections& connections_;
    std::uint64_t id_ = 0;
    std::string remote_;
    bool idle_ = false;      // waiting for the first byte of a request
    bool stopping_ = false;  // finish the request under way, then close
    bool keep_alive_ = false;
    bool drain_on_close_ = false;  // the client may still be sending: read it out first
    // Of the request being handled, for the access log.
    std::string method_;
    std::string target_;
    std::size_t bytes_in_ = 0;
    std::chrono::steady_clock::time_point started_{};
};

// Answers 503 to a connection beyond the cap, then closes it.
void refuse_connection(boost::asio::ip::tcp::socket socket, const HttpLimits& limits);

}  // namespace delayq::server::http
