// TLS over a connected socket, with OpenSSL: the handshake, the verification of the server's
// certificate and name, and non-blocking reads and writes bounded in time like the socket's.
#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include "redis/socket_wait.hpp"
#include "redis/tls_context.hpp"
#include "redis/transport.hpp"

namespace delayq::detail {
namespace {

using Clock = std::chrono::steady_clock;

// What OpenSSL's record layer reads and writes through: the socket, with send(MSG_NOSIGNAL)
// (OpenSSL's own socket BIO uses write(), which raises SIGPIPE when the server has gone).
struct SocketBioState {
    int fd = -1;
    bool eof = false;
};

SocketBioState& state_of(BIO* bio) { return *static_cast<SocketBioState*>(BIO_get_data(bio)); }

bool would_block(int err) { return err == EAGAIN || err == EWOULDBLOCK || err == EINTR; }

int bio_write(BIO* bio, const char* data, std::size_t len, std::size_t* written) {
    BIO_clear_retry_flags(bio);
    const ssize_t n = ::send(state_of(bio).fd, data, len, MSG_NOSIGNAL);
    if (n >= 0) {
        *written = static_cast<std::size_t>(n);
        return 1;
    }
    if (would_block(errno)) BIO_set_retry_write(bio);
    return 0;
}

int bio_read(BIO* bio, char* data, std::size_t len, std::size_t* read) {
    BIO_clear_retry_flags(bio);
    const ssize_t n = ::recv(state_of(bio).fd, data, len, 0);
    if (n > 0) {
        *read = static_cast<std::size_t>(n);
        return 1;
    }
    if (n == 0) {
        state_of(bio).eof = true;
    } else if (would_block(errno)) {
        BIO_set_retry_read(bio);
    }
    return 0;
}

long bio_ctrl(BIO* bio, int cmd, long /*num*/, void* /*ptr*/) {
    switch (cmd) {
        case BIO_CTRL_FLUSH:
            return 1;  // nothing is buffered here
        case BIO_CTRL_EOF:
            return state_of(bio).eof ? 1 : 0;
        default:
            return 0;
    }
}

BIO_METHOD* socket_bio_method() {
    // Made once and never freed: process-wide, like OpenSSL's own methods.
    static BIO_METHOD* const method = [] {
        BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "delayq socket");
        if (m == nullptr) return m;
        BIO_meth_set_write_ex(m, bio_write);
        BIO_meth_set_read_ex(m, bio_read);
        BIO_meth_set_ctrl(m, bio_ctrl);
        return m;
    }();
    return method;
}

bool is_ip_address(const std::string& host) {
    in6_addr addr{};
    return ::inet_pton(AF_INET, host.c_str(), &addr) == 1 ||
           ::inet_pton(AF_INET6, host.c_str(), &addr) == 1;
}

// OpenSSL's texts, with what they most likely mean for Redis.
std::string with_hint(const std::string& reason, int lib_reason) {
    switch (lib_reason) {
        case SSL_R_WRONG_VERSION_NUMBER:
        case SSL_R_PACKET_LENGTH_TOO_LONG:
            return reason +
                   " (the server does not speak TLS on this port: use redis:// for a "
                   "plain port)";
        case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
        case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
            return reason + " (does the server require a client certificate?)";
        case SSL_R_UNEXPECTED_EOF_WHILE_READING:
            return "the server closed the connection";
        default:
            return reason;
    }
}

class TlsTransport final : public Transport {
  public:
    TlsTransport(std::unique_ptr<Transport> socket, const TlsContext& tls)
        : socket_(std::move(socket)), ssl_(SSL_new(tls.native())) {
        bio_state_.fd = socket_->fd();
        BIO* bio = ssl_ == nullptr ? nullptr : BIO_new(socket_bio_method());
        if (bio == nullptr) {
            SSL_free(ssl_);
            throw TransportError("TLS: " + take_openssl_error("out of memory"), false);
        }
        SSL_set_cert_cb(ssl_, note_certificate_request, this);
        BIO_set_data(bio, &bio_state_);
        BIO_set_init(bio, 1);
        SSL_set_bio(ssl_, bio, bio);  // the SSL owns the BIO from here
    }

    ~TlsTransport() override {
        // close_notify, as TLS asks, when the session is sound: one non-blocking write, its
        // outcome ignored (the connection is going anyway).
        if (!failed_ && SSL_is_init_finished(ssl_) == 1) {
            ERR_clear_error();
            (void)SSL_shutdown(ssl_);
            ERR_clear_error();
        }
        SSL_free(ssl_);
    }
    TlsTransport(const TlsTransport&) = delete;
    TlsTransport& operator=(const TlsTransport&) = delete;
    TlsTransport(TlsTransport&&) = delete;
    TlsTransport& operator=(TlsTransport&&) = delete;

    void handshake(const TlsContext& tls, const std::string& host, Duration timeout) {
        const std::string& name = tls.server_name().empty() ? host : tls.server_name();
        const bool ip = is_ip_address(name);
        if (tls.verifies()) {
            X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
            X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
            const int set = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str())
                               : X509_VERIFY_PARAM_set1_host(param, name.c_str(), 0);
            if (set != 1) throw TransportError("TLS: cannot verify the name " + name, false);
        }
        // SNI carries host names only (RFC 6066).
        // (SSL_set_tlsext_host_name, without the macro's C cast; OpenSSL copies the name.)
        if (!ip) {
            SSL_ctrl(ssl_, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                     const_cast<char*>(name.c_str()));
        }

        const auto deadline = Clock::now() + timeout;
        while (true) {
            ERR_clear_error();
            const int rc = SSL_connect(ssl_);
            if (rc == 1) return;
            const int err = SSL_get_error(ssl_, rc);
            if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
                fail_handshake(name, err);
            }
            const auto left = std::chrono::ceil<Duration>(deadline - Clock::now());
            const short events = err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
            if (left.count() <= 0 || !wait_for_socket(socket_->fd(), events, left)) {
                failed_ = true;
                throw TransportError("timed out in the TLS handshake (is this Redis's TLS port?)",
                                     true);
            }
        }
    }

    void write_all(std::span<const char> data, Duration wait) override {
        while (!data.empty()) {
            ERR_clear_error();
            std::size_t written = 0;
            const int rc = SSL_write_ex(ssl_, data.data(), data.size(), &written);
            if (rc == 1) {
                data = data.subspan(written);
                continue;
            }
            const int err = SSL_get_error(ssl_, rc);
            if (!await(err, wait, true)) {
                failed_ = true;
                throw TransportError("timed out writing", true);
            }
        }
    }

    std::size_t read_some(std::span<char> buf, Duration wait) override {
        const auto deadline = Clock::now() + wait;
        while (true) {
            ERR_clear_error();
            std::size_t got = 0;
            const int rc = SSL_read_ex(ssl_, buf.data(), buf.size(), &got);
            if (rc == 1) return got;
            const int err = SSL_get_error(ssl_, rc);
            const auto left = std::chrono::ceil<Duration>(deadline - Clock::now());
            if (left.count() <= 0) {
                if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return 0;
            }
            if (!await(err, std::max(left, Duration{0}), false)) return 0;
        }
    }

    bool idle_and_open() override {
        if (failed_ || SSL_pending(ssl_) > 0) return false;
        pollfd pfd{socket_->fd(), POLLIN, 0};
        if (::poll(&pfd, 1, 0) == 0) return true;
        // Something came in. A TLS 1.3 session ticket is fine (OpenSSL takes it now); data or a
        // close is not.
        ERR_clear_error();
        char byte = 0;
        std::size_t got = 0;
        const int rc = SSL_peek_ex(ssl_, &byte, 1, &got);
        const bool open = rc != 1 && SSL_get_error(ssl_, rc) == SSL_ERROR_WANT_READ;
        ERR_clear_error();
        return open;
    }

    int fd() const override { return socket_->fd(); }

    bool has_buffered() const override { return SSL_pending(ssl_) > 0; }

  private:
    // After a read or write that did not complete: waits up to `wait` for what OpenSSL needs,
    // false when the time passed. Throws TransportError for anything but a wait.
    bool await(int err, Duration wait, bool writing) {
        if (err == SSL_ERROR_WANT_READ) return wait_for_socket(socket_->fd(), POLLIN, wait);
        if (err == SSL_ERROR_WANT_WRITE) return wait_for_socket(socket_->fd(), POLLOUT, wait);
        failed_ = true;
        std::string reason = failure_reason(err);
        // A server that refuses the client (no client certificate, say) sends an alert and
        // closes; a write then only sees the reset, while the alert waits to be read.
        if (writing && err == SSL_ERROR_SYSCALL) {
            ERR_clear_error();
            char byte = 0;
            std::size_t got = 0;
            const int rc = SSL_read_ex(ssl_, &byte, 1, &got);
            if (rc != 1 && SSL_get_error(ssl_, rc) == SSL_ERROR_SSL) {
                reason = failure_reason(SSL_ERROR_SSL);
            }
            ERR_clear_error();
        }
        throw TransportError("TLS: " + with_certificate_hint(reason), false);
    }

    // What OpenSSL's error `err` (from SSL_get_error) means, its error queue emptied.
    std::string failure_reason(int err) {
        if (err == SSL_ERROR_ZERO_RETURN) return "the server closed the TLS session";
        if (err == SSL_ERROR_SYSCALL) {
            const int sys = errno;
            return take_openssl_error(bio_state_.eof || sys == 0
                                          ? "the server closed the connection"
                                          : std::strerror(sys));
        }
        const unsigned long code = ERR_peek_error();
        return with_hint(take_openssl_error("unknown error"), ERR_GET_REASON(code));
    }

    std::string with_certificate_hint(std::string reason) const {
        if (certificate_requested_ && SSL_get_certificate(ssl_) == nullptr) {
            reason += " (the server asked for a client certificate, and none is set)";
        }
        return reason;
    }

    // OpenSSL calls this when the server asks for a client certificate (SSL_set_cert_cb).
    static int note_certificate_request(SSL* /*ssl*/, void* self) {
        static_cast<TlsTransport*>(self)->certificate_requested_ = true;
        return 1;
    }

    [[noreturn]] void fail_handshake(const std::string& name, int err) {
        failed_ = true;
        const long verify = SSL_get_verify_result(ssl_);
        if (verify != X509_V_OK) {
            ERR_clear_error();
            std::string why = X509_verify_cert_error_string(verify);
            if (verify == X509_V_ERR_HOSTNAME_MISMATCH ||
                verify == X509_V_ERR_IP_ADDRESS_MISMATCH) {
                why = "host name mismatch: the server's certificate is not for " + name;
            } else if (verify == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY ||
                       verify == X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN ||
                       verify == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT) {
                why += " (no trusted CA signed the server's certificate: is the CA file right?)";
            }
            throw TransportError("TLS handshake failed: certificate verify failed: " + why, false);
        }
        throw TransportError("TLS handshake failed: " + with_certificate_hint(failure_reason(err)),
                             false);
    }

    std::unique_ptr<Transport> socket_;
    SocketBioState bio_state_;
    SSL* ssl_;
    bool failed_ = false;
    bool certificate_requested_ = false;
};

}  // namespace

std::unique_ptr<Transport> connect_tls(std::unique_ptr<Transport> socket, const TlsContext& tls,
                                       const std::string& host, Duration timeout) {
    auto transport = std::make_unique<TlsTransport>(std::move(socket), tls);
    transport->handshake(tls, host, timeout);
    return transport;
}

}  // namespace delayq::detail
