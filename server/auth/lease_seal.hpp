#pragma once

#include <delayq/delivery.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

// The leases the service hands out, made unforgeable by its clients: the library's lease string
// (a sequence number and the message id, guessable) followed by '.' and a MAC over the queue
// name and that string. One key is shared by every server on a Redis, so that any of them takes
// the leases of the others (docs/security.md, Forged leases).
namespace delayq::server::auth {

class LeaseSeal {
  public:
    // HMAC-SHA256 with `key` (at least 16 bytes, else InvalidArgument), cut to 128 bits.
    explicit LeaseSeal(std::string_view key);
    ~LeaseSeal();
    LeaseSeal(const LeaseSeal&) = delete;
    LeaseSeal& operator=(const LeaseSeal&) = delete;

    // The lease as a client sees it: "<lease.to_string()>.<22 base64url characters>".
    std::string seal(std::string_view queue, const Lease& lease) const;

    struct Opened {
        Lease lease;
        // False for a MAC that is wrong, missing, or sealed for another queue: such a lease is
        // answered as lost, like one that has ended, and never reaches Redis.
        bool authentic = false;
    };
    // nullopt for text that is no lease at all, sealed or not (a 400 naming the field).
    std::optional<Opened> open(std::string_view queue, std::string_view text) const;
    // Whether open() would find a lease in `text` (whatever its MAC): a check that needs no key.
    static bool is_lease(std::string_view text);

  private:
    struct Keyed;  // the HMAC's inner and outer digest states, keyed once
    std::unique_ptr<Keyed> keyed_;
};

}  // namespace delayq::server::auth
