#pragma once

#include <boost/asio/ssl/context.hpp>
#include <filesystem>
#include <memory>
#include <mutex>

namespace delayq::server::http {

// The listener's certificate chain and private key, PEM files.
struct TlsFiles {
    std::filesystem::path cert;
    std::filesystem::path key;
};

// The TLS context new connections use. Reloading swaps it whole: connections already open keep
// the one they started with, new ones get the fresh one. Thread-safe.
class TlsContext {
  public:
    // Loads the files; throws InvalidArgument naming the file and what is wrong with it.
    explicit TlsContext(TlsFiles files);

    // Re-reads the files (SIGHUP, after a certificate's renewal). On an error the old context
    // stays, and InvalidArgument says why.
    void reload();

    std::shared_ptr<boost::asio::ssl::context> current() const;

  private:
    TlsFiles files_;
    mutable std::mutex mutex_;
    std::shared_ptr<boost::asio::ssl::context> context_;
};

}  // namespace delayq::server::http
