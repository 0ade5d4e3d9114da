#pragma once

// Push delivery: a queue's messages are sent, when due, as HTTP requests to the queue's push
// target, signed as Standard Webhooks define, and acked, retried or dead-lettered by the answer
// (docs/push.md). The library stores the target and leases within its limits; the pushers that
// make the requests (`delayq serve`, `delayq push run`) are outside it, so that the library
// needs no HTTP client.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "delayq/leases.hpp"
#include "delayq/limits.hpp"
#include "delayq/types.hpp"

namespace delayq {

namespace detail {
class QueueCore;
}

enum class PushMethod { kPost, kPut, kPatch };
std::string_view to_string(PushMethod method);  // "POST", "PUT", "PATCH"
// The name in any case; nullopt for another method.
std::optional<PushMethod> parse_push_method(std::string_view text);

struct PushHeader {
    std::string name;
    std::string value;
    bool operator==(const PushHeader&) const = default;
};

// A queue's push target as its owner sets it. The header values and the secrets may hold
// credentials: they are write-only, and no reading call returns them (PushTargetInfo); only
// PushTargets::read_for_pusher does, for the pusher role.
struct PushTarget {
    // http:// or https://, at most kMaxPushUrlBytes, without user:password (credentials go in a
    // header, which nobody can read back) or fragment.
    std::string url{};
    PushMethod method = PushMethod::kPost;
    std::string content_type = "application/octet-stream";
    // At most kMaxPushHeaders. A name is an HTTP token; a value is printable ASCII (and tabs).
    // The headers the pusher sets itself are refused: Host, Content-Length, Content-Type,
    // Transfer-Encoding, Connection and the other hop-by-hop ones, webhook-* and Delayq-*.
    std::vector<PushHeader> headers{};
    // One request's limit, 1 s to kMaxPushRequestTimeout. A push's lease is this plus
    // kPushLeaseMargin: a pusher that dies mid-request leaves the message to come back then.
    Duration request_timeout = kDefaultPushRequestTimeout;
    // Requests in flight at once across every pusher of the queue (counted in Redis as the
    // queue's leases, a pull consumer's included), 1 to kMaxPushInFlight.
    std::size_t max_in_flight = kDefaultPushMaxInFlight;
    // Requests started per second across every pusher (on the Redis clock), up to
    // kMaxPushRate; 0: no limit.
    double rate = 0;
    // Standard Webhooks secrets, "whsec_" and the base64 of 24 to 64 random bytes; each signs
    // every request (one "v1," signature each), so that a receiver can rotate. At most
    // kMaxPushSecrets; none: requests are not signed.
    std::vector<std::string> secrets{};

    bool operator==(const PushTarget&) const = default;
};

// Where a pusher may connect: checked on every address it is about to connect to (a name may
// resolve elsewhere tomorrow), and by validate_push_target on a URL that names an address.
struct PushNetwork {
    // Link-local addresses (169.254.0.0/16, fe80::/10), the cloud metadata services', the
    // unspecified ones (0.0.0.0/8, ::: the host itself), multicast and broadcast are always
    // refused. With deny_private, so are loopback, the RFC 1918 ranges, 100.64.0.0/10 and
    // unique local addresses (fc00::/7), which a self-hosted deployment often pushes to. An
    // IPv4 address inside IPv6 (::ffff:a.b.c.d, and NAT64's 64:ff9b::/96) is judged as the IPv4
    // address; an IPv6 zone (%eth0) is ignored.
    bool deny_private = false;
    // Addresses and CIDR ranges ("10.1.2.0/24", "fd00::/8") exempt from every refusal: the
    // operator's explicit choice, so a range that covers a metadata address opens it too.
    std::vector<std::string> allow{};
};

// Throws InvalidArgument naming the field and the reason.
void validate_push_target(const PushTarget& target);
// A secret: "whsec_" and the base64 of 24 to 64 bytes. Throws InvalidArgument (which never
// quotes the secret).
void validate_push_secret(std::string_view secret);
// Each entry of `allow` is an address or a CIDR range. Throws InvalidArgument.
void validate_push_network(const PushNetwork& network);
// Why a pusher must not connect to `address` (an IPv4 or IPv6 literal, as connect() gets it;
// an IPv4-mapped IPv6 address counts as its IPv4 one); nullopt when it may. Throws
// InvalidArgument when `address` is not an address.
std::optional<std::string> push_address_refusal(std::string_view address,
                                                const PushNetwork& network = {});

// The last answer a pusher recorded for the queue.
struct PushOutcome {
    TimePoint at{};  // Redis clock
    int status = 0;  // the HTTP status; 0 when there was none (timeout, refused, reset)
    // Empty for a 2xx; else what went wrong: the status and the first bytes of the answer, or
    // the connection's error.
    std::string error{};
    bool operator==(const PushOutcome&) const = default;
};

// What a reading role sees of a target: never the header values or the secrets.
struct PushTargetInfo {
    std::string url;
    PushMethod method = PushMethod::kPost;
    std::string content_type;
    std::vector<std::string> header_names;
    Duration request_timeout{};
    std::size_t max_in_flight = 0;
    double rate = 0;
    std::size_t secrets = 0;  // how many are set
    TimePoint updated{};      // Redis clock
    std::optional<PushOutcome> last{};
};

enum class PushSetStatus {
    kCreated,
    kUpdated,
    kUnchanged,  // the same target again: nothing written
};

// What a pusher's lease call answers: the fetch's, with what held it back.
struct PushLeases {
    FetchResult fetch;
    // The limits left room for fewer than asked: at max_in_flight, or out of the rate's tokens
    // (fetch.next then includes when the next token comes).
    bool limited = false;
    // false: the queue has no push target (any more), and nothing was leased.
    bool has_target = true;
};

// A queue's push target (Client::push_targets). Cheap to copy; thread-safe. Each call is one
// script call; bad input throws InvalidArgument and writes nothing.
class PushTargets {
  public:
    const std::string& queue() const;

    // Sets the whole target (validated first). The admin role: it writes the secrets.
    PushSetStatus set(const PushTarget& target);
    // nullopt when the queue has no target.
    std::optional<PushTargetInfo> get();
    // false when there was none. The queue's messages stay; nothing pushes them any more.
    bool remove();

    // For pushers (the pusher role, which may read the secrets): the whole target, and its
    // last change, to notice a newer one.
    struct ForPusher {
        PushTarget target;
        TimePoint updated{};
    };
    std::optional<ForPusher> read_for_pusher();
    // Leases up to max_count (1 to kMaxBatch) due messages for a push, within the target's
    // max_in_flight and rate, for request_timeout + kPushLeaseMargin. Without a target it
    // leases nothing (next: none).
    PushLeases lease(std::size_t max_count);
    // Records the last answer (at: the Redis clock's now) for get(); a pusher calls it now and
    // then, not for every request.
    void record(int status, std::string_view error);

  private:
    friend class Client;
    explicit PushTargets(std::shared_ptr<detail::QueueCore> core);
    std::shared_ptr<detail::QueueCore> core_;
};

}  // namespace delayq
