#pragma once

#include <array>
#include <cstdint>
#include <delayq/delivery.hpp>
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
    // `key` (at least 16 bytes, else InvalidArgument) is the shared secret; the MAC's own
    // 128-bit key is derived from it.
    explicit LeaseSeal(std::string_view key);
    ~LeaseSeal();
    LeaseSeal(const LeaseSeal&) = delete;
    LeaseSeal& operator=(const LeaseSeal&) = delete;

    // The lease as a client sees it: "<lease.to_string()>.<22 base64url characters>".
    std::string seal(std::string_view queue, const Lease& lease) const;
    // The same, appended to `out` (a delivery's JSON is written in place).
    void append_sealed(std::string& out, std::string_view queue, const Lease& lease) const;

    // A lease string taken apart, which needs no key: the lease, and the MAC the text carries
    // (empty when it carries none). Views into the text.
    struct Unsealed {
        Lease lease;
        std::string_view raw;  // the library's lease string
        std::string_view mac;
    };
    // nullopt for text that is no lease at all, sealed or not (a 400 naming the field).
    static std::optional<Unsealed> unseal(std::string_view text);

    // False for a MAC that is wrong, missing, or sealed for another queue: such a lease is
    // answered as lost, like one that has ended, and never reaches Redis.
    bool authentic(std::string_view queue, const Unsealed& unsealed) const;

    struct Opened {
        Lease lease;
        bool authentic = false;
    };
    // unseal() and authentic() in one.
    std::optional<Opened> open(std::string_view queue, std::string_view text) const;

  private:
    using Mac = std::array<char, 22>;
    Mac mac(std::string_view queue, std::string_view raw) const;

    std::array<unsigned char, 16> key_{};
    // Tells the threads' keyed MAC contexts which seal they were keyed for (an address may be
    // reused by a later seal; this number is not).
    std::uint64_t id_;
};

}  // namespace delayq::server::auth
