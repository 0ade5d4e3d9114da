#pragma once

#include <boost/asio/ssl/context.hpp>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

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
    // Loads the files; throws InvalidArgument naming the file and what is wrong with it. A
    // certificate out of its dates is loaded all the same (see date_warning()).
    explicit TlsContext(TlsFiles files);

    // Re-reads the files (SIGHUP, after a certificate's renewal). On an error the old context
    // stays, and InvalidArgument says why.
    void reload();

    std::shared_ptr<boost::asio::ssl::context> current() const;
    // What is wrong with the current certificate's dates (expired, not yet valid, expiring
    // soon), also logged as a warning at each load; nullopt when nothing is.
    std::optional<std::string> date_warning() const;

  private:
    TlsFiles files_;
    mutable std::mutex mutex_;
    std::shared_ptr<boost::asio::ssl::context> context_;
    std::optional<std::string> date_warning_;
};

}  // namespace delayq::server::http
