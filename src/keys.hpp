#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace delayq::detail {

// The only place key names are built. Every key of a queue carries the hash tag {name}, so they
// all live in one Redis Cluster slot; scripts receive all of them in KEYS, in this order (the
// contract in src/lua/lib/keys.lua).
inline constexpr std::string_view kKeyPrefix = "dq:";
inline constexpr std::array<std::string_view, 16> kKeySuffixes = {
    "msg",    "pending",  "inflight", "dead",     "err",       "stats",       "wake", "cold",
    "blocks", "blockidx", "settings", "lateness", "schedules", "schedclaims", "push", "history"};

// Index of the wake channel in QueueKeys: consumers subscribe to it.
inline constexpr std::size_t kWakeChannel = 6;

using QueueKeys = std::array<std::string, kKeySuffixes.size()>;

QueueKeys make_keys(std::string_view queue);

// The queue's one write-only key: its push target's header values and secrets. Its prefix is not
// the queue's, so that a role's `dq:{q}:*` pattern does not reach it (Redis ACL patterns cannot
// exclude one key); the hash tag is, so that it lives in the queue's slot. Only the scripts that
// read or write it get it, in KEYS after the queue's keys (lib/keys.lua).
inline constexpr std::string_view kSecretKeyPrefix = "dqs:";
std::string make_secret_key(std::string_view queue);

// Client::shared_secret's key: no hash tag, so no queue's key pattern (dq:{...}:*) matches it.
inline constexpr std::string_view kSharedSecretKey = "dq:shared-secret";
inline constexpr std::size_t kSharedSecretBytes = 32;

// The registry of queues that have recurring schedules: a zset, queue -> when a schedule was last
// added, changed or resumed there (unix ms). Schedulers read it to find their queues; it is
// outside every queue's slot, so writing it is a command of its own after the schedule's script
// (docs/design.md, Schedules).
inline constexpr std::string_view kScheduleRegistryKey = "dq:schedules";
// The same for the queues that have a push target, which pushers read to find theirs.
inline constexpr std::string_view kPushRegistryKey = "dq:pushtargets";

// The pattern matching the stats hash of every queue, for discovering queues with SCAN.
inline constexpr std::string_view kStatsPattern = "dq:{*}:stats";

// The queue name in a key matched by kStatsPattern; nullopt for any other key.
std::optional<std::string> queue_of_stats_key(std::string_view key);

// A sequence number as the scripts write it (seq_key in src/lua/lib/seq.lua): kSeqLen lowercase
// hex digits, so byte order is numeric order. Generated ids are sequence keys.
std::string sequence_key(std::uint64_t n);

// Whether text has the form of a sequence key (and so of a generated id).
bool is_sequence_key(std::string_view text);

// A delivery's lease as scripts take it: the member of the inflight set, which is the token as a
// sequence key followed by the id (lease_of in src/lua/lib/lease.lua). Passing the member
// itself spares every script a number parse and a string.format per message.
std::string lease_member(std::uint64_t token, std::string_view id);

// The token and the id of a lease; nullopt when `lease` is not one (a token of kSeqLen lowercase
// hex digits, not 0, then at least one byte of id; the id itself is not checked).
std::optional<std::pair<std::uint64_t, std::string_view>> parse_lease(std::string_view lease);
// The same for a lease a script sent: throws ServerError when it is not one.
std::pair<std::uint64_t, std::string_view> split_lease(std::string_view lease);

}  // namespace delayq::detail
