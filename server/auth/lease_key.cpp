#include "auth/lease_key.hpp"

#include <openssl/crypto.h>
#include <spdlog/spdlog.h>

#include <delayq/error.hpp>
#include <fstream>
#include <iterator>
#include <string>

namespace delayq::server::auth {
namespace {

// As many bytes as the secret Redis holds: a shorter key is the weakest link.
constexpr std::size_t kMinKeyBytes = 32;

}  // namespace

std::string read_lease_key_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InvalidArgument("lease key file " + file.string() + ": cannot be read");
    std::string key((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!key.empty() &&
           (key.back() == '\n' || key.back() == '\r' || key.back() == ' ' || key.back() == '\t')) {
        key.pop_back();
    }
    if (key.size() < kMinKeyBytes) {
        throw InvalidArgument("lease key file " + file.string() + " holds " +
                              std::to_string(key.size()) + " bytes, fewer than " +
                              std::to_string(kMinKeyBytes) +
                              " (make one with `openssl rand -hex 32`)");
    }
    return key;
}

LeaseKey::LeaseKey(const std::optional<std::filesystem::path>& file, Client client)
    : client_(std::move(client)) {
    if (file) {
        seal_ = std::make_unique<LeaseSeal>(read_lease_key_file(*file));
        ready_.store(seal_.get(), std::memory_order_release);
    }
}

const LeaseSeal& LeaseKey::seal() {
    if (const LeaseSeal* ready = ready_.load(std::memory_order_acquire)) return *ready;
    const std::lock_guard lock(mutex_);
    if (!seal_) {
        std::string secret;
        try {
            secret = client_.shared_secret();
        } catch (const PermissionError& e) {
            // Not the client's fault, nor a bug: a 503 that says what the operator must grant,
            // and the log says it once.
            ConfigurationError refused(
                std::string("this server's Redis user may not read or make the lease key "
                            "dq:shared-secret: grant it with `delayq acl --serve`, or give every "
                            "server --lease-key-file (") +
                e.what() + ")");
            if (!refusal_logged_) spdlog::error("lease routes: {}", refused.what());
            refusal_logged_ = true;
            throw refused;
        }
        seal_ = std::make_unique<LeaseSeal>(secret);
        OPENSSL_cleanse(secret.data(), secret.size());
        ready_.store(seal_.get(), std::memory_order_release);
    }
    return *seal_;
}

}  // namespace delayq::server::auth
