// The receiver's server: one Connection per accepted socket, each on its own strand, reading a
// request, answering it (after a timer when the answer is delayed) and reading the next, so that
// a slow answer holds up only its own connection.
#include "support/push_receiver.hpp"

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

namespace delayq::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Tcp = asio::ip::tcp;
using Request = http::request<http::string_body>;

constexpr std::uint64_t kMaxBody = std::uint64_t{1024} * 1024;

// Unix milliseconds from a header value; nullopt unless the whole value is a number.
std::optional<std::int64_t> unix_ms(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::int64_t micros_since_epoch(std::chrono::system_clock::time_point at) {
    return std::chrono::duration_cast<std::chrono::microseconds>(at.time_since_epoch()).count();
}

ReceiverAnswer failure_answer(std::string body) {
    return ReceiverAnswer{.status = 500, .body = std::move(body)};
}

// What the connections share: the record of requests, the responder, the io threads.
class Core {
  public:
    Core(PushReceiver::Responder responder, unsigned threads, bool keep_requests)
        : responder_(std::move(responder)),
          keep_requests_(keep_requests),
          acceptor_(io_, Tcp::endpoint(asio::ip::address_v4::loopback(), 0)),
          port_(acceptor_.local_endpoint().port()) {
        accept();
        for (unsigned i = 0; i < std::max(threads, 1U); ++i) {
            threads_.emplace_back([this] { io_.run(); });
        }
    }

    ~Core() {
        io_.stop();
        for (auto& thread : threads_) thread.join();
        // The connections still waiting are destroyed with io_, after the threads are gone.
    }

    Core(const Core&) = delete;
    Core& operator=(const Core&) = delete;

    void accept();
    // Records a request that has just been read and asks the responder for its answer.
    ReceiverAnswer arrive(Request& message, std::uint64_t connection,
                          std::chrono::system_clock::time_point at);
    void finished();  // a recorded request was answered or its connection closed

    std::uint16_t port() const { return port_; }
    std::size_t connections() const { return connections_.load(); }
    std::size_t count() const {
        const std::lock_guard lock(mutex_);
        return answered_;
    }
    std::vector<ReceivedRequest> requests() const {
        const std::lock_guard lock(mutex_);
        return requests_;
    }
    std::vector<std::int64_t> lateness_us() const {
        const std::lock_guard lock(mutex_);
        return lateness_;
    }
    bool wait_for(const std::function<bool(const std::vector<ReceivedRequest>&)>& pred,
                  std::chrono::milliseconds timeout);

  private:
    void changed(std::unique_lock<std::mutex>& lock) {
        ++generation_;
        lock.unlock();
        changed_.notify_all();
    }

    const PushReceiver::Responder responder_;
    const bool keep_requests_;

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<ReceivedRequest> requests_;
    std::vector<std::int64_t> lateness_;
    // Arrivals of each body, for the responder's nth; kept only when there is a responder.
    std::unordered_map<std::string, std::size_t> seen_;
    std::size_t answered_ = 0;
    std::uint64_t generation_ = 0;  // bumped on every change, for wait_for
    std::atomic<std::uint64_t> connections_{0};

    // Declared after the state above: destroying io_ destroys the connections' handlers.
    asio::io_context io_;
    Tcp::acceptor acceptor_;
    std::uint16_t port_;
    std::vector<std::thread> threads_;
};

class Connection : public std::enable_shared_from_this<Connection> {
  public:
    Connection(Tcp::socket socket, Core& core, std::uint64_t number)
        : socket_(std::move(socket)),
          timer_(socket_.get_executor()),
          core_(core),
          number_(number) {}

    // From the acceptor's handler: the first read starts on the connection's own strand.
    void start() {
        asio::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->read(); });
    }

  private:
    void read() {
        parser_.emplace();
        parser_->body_limit(kMaxBody);
        http::async_read_header(socket_, buffer_, *parser_,
                                [self = shared_from_this()](beast::error_code error, std::size_t) {
                                    self->on_header(error);
                                });
    }

    // A client that asks whether to send its body (curl does for large ones) would otherwise
    // wait a second for the interim answer before sending it anyway.
    void on_header(beast::error_code error) {
        if (error) return on_error(error);
        if (!beast::iequals(parser_->get()[http::field::expect], "100-continue"))
            return read_body();
        interim_.emplace(http::status::continue_, 11);
        http::async_write(socket_, *interim_,
                          [self = shared_from_this()](beast::error_code write_error, std::size_t) {
                              if (write_error) return self->close();
                              self->read_body();
                          });
    }

    void read_body() {
        http::async_read(socket_, buffer_, *parser_,
                         [self = shared_from_this()](beast::error_code error, std::size_t) {
                             self->on_read(error);
                         });
    }

    void on_read(beast::error_code error) {
        if (error) return on_error(error);
        const auto at = std::chrono::system_clock::now();
        Request message = parser_->release();
        keep_alive_ = message.keep_alive();
        ReceiverAnswer answer = core_.arrive(message, number_, at);
        if (answer.delay <= std::chrono::milliseconds::zero()) return respond(std::move(answer));
        timer_.expires_after(answer.delay);
        timer_.async_wait(
            [self = shared_from_this(), answer = std::move(answer)](beast::error_code wait_error) {
                if (wait_error) return;
                self->respond(answer);
            });
    }

    // The peer leaving ends the connection quietly; a request that cannot be parsed is
    // answered, as a real server would, and ends it too.
    void on_error(beast::error_code error) {
        if (error.category() != http::make_error_code(http::error::end_of_stream).category() ||
            error == http::error::end_of_stream || error == http::error::partial_message) {
            return close();
        }
        keep_alive_ = false;
        const bool too_large = error == http::error::body_limit;
        write(ReceiverAnswer{.status = too_large ? 413 : 400,
                             .body = too_large ? "body too large" : "malformed request"},
              false);
    }

    void respond(ReceiverAnswer answer) {
        if (answer.close) {
            close();
            return core_.finished();
        }
        write(std::move(answer), true);
    }

    void write(ReceiverAnswer answer, bool recorded) {
        response_ = {};
        response_.version(11);
        response_.result(static_cast<unsigned>(answer.status));
        for (const auto& [name, value] : answer.headers) response_.insert(name, value);
        response_.body() = std::move(answer.body);
        response_.keep_alive(keep_alive_);
        response_.prepare_payload();
        http::async_write(
            socket_, response_,
            [self = shared_from_this(), recorded](beast::error_code error, std::size_t) {
                if (recorded) self->core_.finished();
                if (error || !self->keep_alive_) return self->close();
                self->read();
            });
    }

    void close() {
        beast::error_code ignored;
        socket_.shutdown(Tcp::socket::shutdown_both, ignored);
        socket_.close(ignored);
    }

    Tcp::socket socket_;
    asio::steady_timer timer_;
    Core& core_;
    const std::uint64_t number_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    std::optional<http::response<http::empty_body>> interim_;
    http::response<http::string_body> response_;
    bool keep_alive_ = true;
};

void Core::accept() {
    acceptor_.async_accept(
        asio::make_strand(io_), [this](beast::error_code error, Tcp::socket socket) {
            if (error == asio::error::operation_aborted) return;
            if (!error) {
                beast::error_code ignored;
                socket.set_option(Tcp::no_delay(true), ignored);
                std::make_shared<Connection>(std::move(socket), *this, ++connections_)->start();
            }
            accept();
        });
}

ReceiverAnswer Core::arrive(Request& message, std::uint64_t connection,
                            std::chrono::system_clock::time_point at) {
    const auto due = unix_ms(message[std::string_view("Delayq-Due")]);
    if (!keep_requests_ && !responder_) {
        // The benchmark's path: nothing is copied.
        std::unique_lock lock(mutex_);
        if (due) lateness_.push_back(micros_since_epoch(at) - *due * 1000);
        changed(lock);
        return {};
    }
    ReceivedRequest request{.method = std::string(message.method_string()),
                            .target = std::string(message.target()),
                            .headers = {},
                            .body = std::move(message.body()),
                            .received_at = at,
                            .connection = connection};
    for (const auto& field : message) {
        request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    std::size_t nth = 0;
    {
        std::unique_lock lock(mutex_);
        if (responder_) nth = seen_[request.body]++;
        if (due) lateness_.push_back(micros_since_epoch(at) - *due * 1000);
        if (keep_requests_) requests_.push_back(request);
        changed(lock);
    }
    if (!responder_) return {};
    ReceiverAnswer answer;
    try {
        answer = responder_(request, nth);
    } catch (const std::exception& error) {
        return failure_answer(std::string("the test's responder threw: ") + error.what());
    }
    if (answer.status < 100 || answer.status > 999) {
        return failure_answer("the test's responder gave status " + std::to_string(answer.status));
    }
    return answer;
}

void Core::finished() {
    std::unique_lock lock(mutex_);
    ++answered_;
    changed(lock);
}

bool Core::wait_for(const std::function<bool(const std::vector<ReceivedRequest>&)>& pred,
                    std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::unique_lock lock(mutex_);
    for (;;) {
        const std::uint64_t seen = generation_;
        std::vector<ReceivedRequest> snapshot = requests_;
        // pred may call back into the receiver (count(), requests()): not under the lock.
        lock.unlock();
        if (pred(snapshot)) return true;
        lock.lock();
        if (!changed_.wait_until(lock, deadline, [&] { return generation_ != seen; })) {
            snapshot = requests_;
            lock.unlock();
            return pred(snapshot);
        }
    }
}

}  // namespace

struct PushReceiver::Impl : Core {
    using Core::Core;
};

PushReceiver::PushReceiver(Responder responder, unsigned threads, bool keep_requests)
    : impl_(std::make_unique<Impl>(std::move(responder), threads, keep_requests)) {}

PushReceiver::~PushReceiver() = default;

std::uint16_t PushReceiver::port() const { return impl_->port(); }

std::string PushReceiver::url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(port()) + std::string(path);
}

std::vector<ReceivedRequest> PushReceiver::requests() const { return impl_->requests(); }
std::size_t PushReceiver::count() const { return impl_->count(); }
std::size_t PushReceiver::connections() const { return impl_->connections(); }
std::vector<std::int64_t> PushReceiver::lateness_us() const { return impl_->lateness_us(); }

bool PushReceiver::wait_for(const std::function<bool(const std::vector<ReceivedRequest>&)>& pred,
                            std::chrono::milliseconds timeout) {
    return impl_->wait_for(pred, timeout);
}

}  // namespace delayq::test
