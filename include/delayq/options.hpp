#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "delayq/limits.hpp"
#include "delayq/types.hpp"

namespace delayq {

// TLS to Redis, used with a rediss:// URL (with any other URL, setting any of it is an
// InvalidArgument, so that a missing "s" cannot silently turn TLS off). The files are PEM and are
// read when the Client is made: an unreadable or mismatched one is an InvalidArgument then.
struct TlsOptions {
    // The CA certificates the server's certificate must chain to. Empty: the system's trusted CAs.
    std::string ca_file{};
    // A client certificate (and its chain) for mutual TLS, with its private key; one without the
    // other is an InvalidArgument.
    std::string cert_file{};
    std::string key_file{};
    // The name the server's certificate must carry, also sent as SNI. Empty: the URL's host.
    std::string server_name{};
    // Accept any server certificate and name: anyone on the network path can then read and
    // change the messages. For tests only; logged as a warning.
    bool insecure_skip_verify = false;

    bool any_set() const {
        return !ca_file.empty() || !cert_file.empty() || !key_file.empty() ||
               !server_name.empty() || insecure_skip_verify;
    }
};

// How a Client runs delayq's operations on Redis (design.md, section 4, Function library).
enum class ScriptEngine {
    // The function library, called with FCALL and loaded where it is missing; on a server that
    // refuses it (no FUNCTION or FCALL for the ACL user, a proxy, a full Redis), EVALSHA, said
    // once in the log and by Client::engine(), and functions tried again on a new connection.
    kAuto,
    // The function library, or a ConfigurationError where the server refuses it.
    kFunctions,
    // EVALSHA and EVAL only, as delayq 0.1 did.
    kScripts,
};

// "auto", "functions" or "scripts": the names the bench, the tests' DELAYQ_ENGINE, `delayq queue
// info` and the service's /readyz use.
std::string_view to_string(ScriptEngine engine);
// Parses those names; nullopt otherwise.
std::optional<ScriptEngine> parse_script_engine(std::string_view text);

// The sentinels of a redis+sentinel:// URL, which are reached with their own credentials and TLS
// (the URL's are the data servers'). Setting any of it with another URL is an InvalidArgument.
struct SentinelOptions {
    // The sentinels' password (requirepass, or the ACL user's with `user`); unset: none.
    std::optional<std::string> password{};
    std::string user{};
    // TLS to the sentinels, which then must all speak it; off when nothing is set.
    TlsOptions tls{};

    bool any_set() const { return password.has_value() || !user.empty() || tls.any_set(); }
};

struct ClientOptions {
    Duration connect_timeout = std::chrono::seconds(2);
    Duration command_timeout = std::chrono::seconds(2);
    TlsOptions tls{};           // for a rediss:// URL
    std::size_t pool_size = 4;  // idle connections kept for producers and inspection
    // A maxmemory-policy other than noeviction can evict a queue's keys, which loses messages.
    // delayq always logs a warning; with this set it refuses to run (ConfigurationError).
    bool refuse_evicting_server = false;
    // The Redis password, kept out of the URL (and so out of command lines and logs): it
    // replaces a password the URL has, and a URL with user info but no colon (redis://alice@host)
    // then names the ACL user. Empty is an InvalidArgument (an unset variable, most likely).
    std::optional<std::string> password{};
    ScriptEngine engine = ScriptEngine::kAuto;
    SentinelOptions sentinel{};  // for a redis+sentinel:// URL
};

// What a Client runs its operations with, and why (Client::engine()).
struct EngineStatus {
    ScriptEngine mode = ScriptEngine::kScripts;  // kFunctions or kScripts
    std::string library{};  // the function library this client calls: delayq_<layout>_<hash>
    std::string reason{};   // why it runs scripts; empty with functions
};

// Sends confirmed by replicas (docs/reliability.md, "Durable sends"): after each send call the
// handle asks Redis to WAIT until `replicas` replicas have the call's writes, for at most
// `timeout`. Fewer in time: the send reports DurabilityError with the ids of its messages, which
// may be stored all the same, so that a retry with those ids is idempotent. WAIT is not
// consensus: see the document for what this promises.
struct Durability {
    // 0: plain sends, no WAIT. At most kMaxWaitReplicas.
    int replicas = 0;
    // With replicas: more than 0 (WAIT 0 would block forever), at most kMaxWaitTimeout.
    Duration timeout{0};

    bool operator==(const Durability&) const = default;
};

// What a producer's handle checks before sending. How the queue behaves (default max attempts,
// backoff, dead-letter retention, paused) is stored in Redis with the queue: QueueSettings.
struct QueueOptions {
    std::size_t max_payload_bytes = kDefaultMaxPayloadBytes;  // at most kMaxPayloadBytes
    // The longest a send_async of a message due at least ten times this far ahead waits for
    // others to share its script call: at low rates one call per message is most of what a send
    // costs Redis (docs/benchmarks.md). Such a message reaches Redis long before it is due, so
    // the wait makes no delivery later. Blocking sends, messages due sooner and a closing Queue
    // never wait; a message that must go takes those waiting with it. 0: none waits. 0 to 1 s.
    Duration send_linger = std::chrono::milliseconds(5);
    // Replicas that must confirm every send of this handle; none by default. Handles of one
    // queue with other durability get their own send line (Client::queue), so a shared script
    // call never mixes durable and plain senders.
    Durability durability{};

    bool operator==(const QueueOptions&) const = default;
};

struct SendOptions {
    // When the message falls due, relative to the Redis server's clock at the time of the send.
    Duration delay{0};
    // An absolute due time instead of delay (on the Redis clock, which NTP keeps near UTC), from
    // 1970 to the end of the year 9999; setting both is an InvalidArgument. Milliseconds, like
    // every time in the API: a nanosecond system_clock::time_point ends in 2262.
    std::optional<TimePoint> at{};
    // Absent: a generated id, unique in the queue and sorting in send order. Otherwise an
    // idempotency key: sending an id that still exists changes nothing and reports a duplicate.
    // An empty id is an InvalidArgument, so that an unset variable cannot silently turn an
    // idempotent send into a new message on every retry.
    std::optional<std::string> id{};
    int max_attempts = 0;  // 0: the queue's setting (QueueSettings::max_attempts)
    // 0: never. Else, from this long after the send, the message is no longer delivered: the
    // first fetch, nack or lapsed lease that meets it moves it to the dead-letter set with
    // reason "expired". A delivery already under way may still be acked. Must exceed the delay.
    Duration expire_after{0};
};

struct Message {
    std::string payload{};
    SendOptions options{};
};

// Exponential backoff with jitter: attempt n waits initial * multiplier^(n-1), capped at max, then
// spread by +-jitter (a fraction).
struct Backoff {
    Duration initial = kDefaultBackoffInitial;
    Duration max = kDefaultBackoffMax;
    double multiplier = kDefaultBackoffMultiplier;
    double jitter = kDefaultBackoffJitter;

    // random01 is uniform in [0, 1).
    Duration delay_for(int attempt, double random01) const;
};

struct ConsumerOptions {
    std::size_t concurrency = 1;  // handlers running at once
    // Leased messages held beyond the running handlers, so a handler that finishes finds the next
    // one without a round trip. Their leases are extended like running ones, and they are handed
    // back at once when the consumer stops. Unset: as many as the handlers finish in about
    // 10 ms by their measured speed (at most max_batch; none until a handler has run, and none
    // while handlers take 10 ms or more), so that fast handlers get whole batches per fetch
    // while a slow consumer holds back no message another consumer could take.
    std::optional<std::size_t> prefetch{};
    std::size_t max_batch = 100;  // messages per fetch, at most kMaxBatch
    // Lease length; extended while the handler runs.
    Duration visibility_timeout = std::chrono::seconds(30);
    // Delay of a handler's nack that names none (and of a handler's exception). Unset: the
    // queue's backoff (QueueSettings::backoff), computed by the script from the attempts made.
    std::optional<Backoff> backoff{};
    // How long stop() lets running handlers finish.
    Duration shutdown_timeout = std::chrono::seconds(30);
    // The longest an ack waits for others to share its script call: one call of one ack costs
    // Redis about as much as five acks in one (docs/benchmarks.md), and at a few hundred messages
    // a second each ack would otherwise go alone. Nacks and releases, which make a message due
    // again, never wait, nor does anything once a batch is full or the consumer stops. 0: each
    // call takes only what piled up while the one before was under way. Capped at a tenth of
    // visibility_timeout, so that a waiting ack never outlives its lease; at most 1 s.
    Duration ack_linger = std::chrono::milliseconds(2);
    // The longest a consumer sleeps without a wake-up signal: a safety net for lost signals
    // (resubscribing after a broken connection also wakes it). An idle consumer's check costs
    // Redis five commands (one script call), so the default is about one command per second.
    Duration idle_check = std::chrono::seconds(5);
    // Stop gracefully on SIGINT and SIGTERM (handlers installed while the consumer runs, the
    // previous ones restored after). Off: the application calls stop().
    bool stop_on_signals = false;
    // Called (from a consumer thread) for every message this consumer moved to the dead-letter
    // set. Consumers of one queue made from one Client share their fetches: an expired message
    // that a shared fetch moved is reported to the consumer that made the call. An exception it
    // throws is logged and ignored.
    std::function<void(const DeadLetterEvent&)> on_dead_letter{};
};

}  // namespace delayq
