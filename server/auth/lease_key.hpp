#pragma once

#include <atomic>
#include <delayq/client.hpp>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>

#include "auth/lease_seal.hpp"

// Where the service's lease key comes from: a file (--lease-key-file), or the Redis every
// server of a deployment shares (Client::shared_secret, made once with SET NX). Either way every
// server behind a balancer, and a restarted one, takes the leases the others handed out.
namespace delayq::server::auth {

class LeaseKey {
  public:
    // A file's key is read now: its bytes, trailing white space left out, at least 32 of them
    // (`openssl rand -hex 32 > lease.key`); else InvalidArgument naming the file. Without a
    // file, the key is read from Redis on first use (the first lease handed out or taken back),
    // so that a server that serves no leases writes nothing to Redis.
    LeaseKey(const std::optional<std::filesystem::path>& file, Client client);

    // Throws what Client::shared_secret throws (Redis down), and ConfigurationError (a 503 that
    // names the grant) when Redis's ACL refuses the key; the next call tries again.
    const LeaseSeal& seal();

  private:
    Client client_;
    std::mutex mutex_;
    std::unique_ptr<LeaseSeal> seal_;
    bool refusal_logged_ = false;  // under mutex_
    std::atomic<const LeaseSeal*> ready_{nullptr};
};

// The bytes of a lease key file, as LeaseKey reads them.
std::string read_lease_key_file(const std::filesystem::path& file);

}  // namespace delayq::server::auth
