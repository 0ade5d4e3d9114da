#include "redis/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

// An encrypted key would make OpenSSL prompt on the terminal; failing is the clear outcome.
int no_passphrase(char* /*buf*/, int /*size*/, int /*rwflag*/, void* /*user*/) { return 0; }

[[noreturn]] void bad_option(const std::string& what) {
    throw InvalidArgument("TLS options: " + what);
}

// Unreadable files are said plainly, before OpenSSL's less direct texts.
void check_readable(const std::string& path, const char* what) {
    if (::access(path.c_str(), R_OK) != 0) {
        bad_option(std::string("cannot read the ") + what + " " + path + ": " +
                   std::strerror(errno));
    }
}

}  // namespace

std::string take_openssl_error(const std::string& fallback) {
    const unsigned long first = ERR_get_error();
    ERR_clear_error();
    if (first == 0) return fallback;
    if (const char* reason = ERR_reason_error_string(first)) return reason;
    std::array<char, 256> text{};
    ERR_error_string_n(first, text.data(), text.size());
    return text.data();
}

TlsContext::TlsContext(const TlsOptions& options)
    : ctx_(SSL_CTX_new(TLS_client_method())),
      server_name_(options.server_name),
      verify_(!options.insecure_skip_verify) {
    if (ctx_ == nullptr) throw Error("TLS: " + take_openssl_error("cannot make a context"));
    try {
        SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
        SSL_CTX_set_default_passwd_cb(ctx_, no_passphrase);
        // write_all retries a write from wherever the data is, as OpenSSL allows with this.
        SSL_CTX_set_mode(ctx_, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
        SSL_CTX_set_verify(ctx_, verify_ ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
        if (!options.ca_file.empty()) {
            check_readable(options.ca_file, "CA file");
            if (SSL_CTX_load_verify_locations(ctx_, options.ca_file.c_str(), nullptr) != 1) {
                bad_option("the CA file " + options.ca_file +
                           " holds no usable certificate: " + take_openssl_error("unknown error"));
            }
        } else if (verify_ && SSL_CTX_set_default_verify_paths(ctx_) != 1) {
            bad_option("cannot load the system's trusted CAs: " +
                       take_openssl_error("unknown error"));
        }
        if (options.cert_file.empty() != options.key_file.empty()) {
            bad_option(options.cert_file.empty()
                           ? "a client key needs its certificate (cert_file)"
                           : "a client certificate needs its private key (key_file)");
        }
        if (!options.cert_file.empty()) {
            check_readable(options.cert_file, "client certificate");
            check_readable(options.key_file, "client key");
            if (SSL_CTX_use_certificate_chain_file(ctx_, options.cert_file.c_str()) != 1) {
                bad_option(
                    "the client certificate " + options.cert_file +
                    " is not a usable PEM certificate: " + take_openssl_error("unknown error"));
            }
            if (SSL_CTX_use_PrivateKey_file(ctx_, options.key_file.c_str(), SSL_FILETYPE_PEM) !=
                1) {
                if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
                    ERR_clear_error();
                    bad_option("the client key " + options.key_file +
                               " does not belong to the certificate " + options.cert_file);
                }
                bad_option(
                    "the client key " + options.key_file +
                    " is not a usable unencrypted PEM key: " + take_openssl_error("unknown error"));
            }
            if (SSL_CTX_check_private_key(ctx_) != 1) {
                bad_option("the client key " + options.key_file +
                           " does not belong to the certificate " + options.cert_file);
            }
        }
    } catch (...) {
        SSL_CTX_free(ctx_);
        throw;
    }
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

}  // namespace delayq::detail
