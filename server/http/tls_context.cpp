#include "http/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <delayq/error.hpp>
#include <fstream>
#include <string>

#include "http/certificate_dates.hpp"

namespace delayq::server::http {
namespace {

namespace ssl = boost::asio::ssl;

// A file that cannot be opened is named with the system's reason, before OpenSSL's less clear
// one ("no such file" comes out as a PEM library error).
void require_readable(const std::filesystem::path& file, const char* flag) {
    std::ifstream in(file);
    if (!in) {
        throw InvalidArgument(std::string(flag) + ": cannot read " + file.string() + ": " +
                              std::strerror(errno));
    }
}

std::shared_ptr<ssl::context> load(const TlsFiles& files) {
    require_readable(files.cert, "--listen-tls-cert");
    require_readable(files.key, "--listen-tls-key");
    auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
    // TLS 1.2 and later only: the older versions have known weaknesses and no client needs them.
    context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                         ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                         ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
    boost::system::error_code ec;
    context->use_certificate_chain_file(files.cert.string(), ec);
    if (ec) {
        throw InvalidArgument("--listen-tls-cert: " + files.cert.string() +
                              " is not a PEM certificate chain: " + ec.message());
    }
    context->use_private_key_file(files.key.string(), ssl::context::pem, ec);
    if (ec) {
        // OpenSSL checks the key against the certificate here: "key values mismatch".
        throw InvalidArgument(
            "--listen-tls-key: " + files.key.string() +
            " is not a PEM private key, or not the certificate's: " + ec.message());
    }
    if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
        ERR_clear_error();
        throw InvalidArgument("--listen-tls-key: " + files.key.string() +
                              " is not the key of the certificate in " + files.cert.string());
    }
    return context;
}

// The leaf certificate's, which is the one clients check against their clock.
std::optional<std::string> warn_of_dates(ssl::context& context, const std::filesystem::path& cert) {
    auto warning =
        certificate_date_warning(SSL_CTX_get0_certificate(context.native_handle()), cert);
    if (warning) spdlog::warn("http: {}", *warning);
    return warning;
}

}  // namespace

TlsContext::TlsContext(TlsFiles files) : files_(std::move(files)), context_(load(files_)) {
    date_warning_ = warn_of_dates(*context_, files_.cert);
}

void TlsContext::reload() {
    auto fresh = load(files_);
    auto warning = warn_of_dates(*fresh, files_.cert);
    std::lock_guard lock(mutex_);
    context_ = std::move(fresh);
    date_warning_ = std::move(warning);
}

std::optional<std::string> TlsContext::date_warning() const {
    std::lock_guard lock(mutex_);
    return date_warning_;
}

std::shared_ptr<ssl::context> TlsContext::current() const {
    std::lock_guard lock(mutex_);
    return context_;
}

}  // namespace delayq::server::http
