#pragma once

#include <string>

#include "delayq/options.hpp"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX: its headers stay in the TLS files

namespace delayq::detail {

// The TLS settings of one Client, made once from its TlsOptions and shared by all its connections
// (each TLS session takes its own reference to the OpenSSL context). Read-only once made, so
// threads may share it.
class TlsContext {
  public:
    // Reads the CA, certificate and key files. Throws InvalidArgument naming the option at fault.
    explicit TlsContext(const TlsOptions& options);
    ~TlsContext();
    TlsContext(const TlsContext&) = delete;
    TlsContext& operator=(const TlsContext&) = delete;
    TlsContext(TlsContext&&) = delete;
    TlsContext& operator=(TlsContext&&) = delete;

    ssl_ctx_st* native() const { return ctx_; }
    // The name to verify and send as SNI; empty: the URL's host.
    const std::string& server_name() const { return server_name_; }
    bool verifies() const { return verify_; }

  private:
    ssl_ctx_st* ctx_;
    std::string server_name_;
    bool verify_;
};

// OpenSSL's reason for the failure just seen (its thread-local error queue, emptied), or
// `fallback` when it has none.
std::string take_openssl_error(const std::string& fallback);

}  // namespace delayq::detail
