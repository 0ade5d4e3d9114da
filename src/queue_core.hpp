#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client_core.hpp"
#include "delayq/queue.hpp"
#include "keys.hpp"
#include "redis/connection.hpp"
#include "redis/script.hpp"
#include "scripts.hpp"
#include "send_coalescer.hpp"

namespace delayq::detail {

// A message to send, by reference: the single-message path does not copy the payload.
struct MessageRef {
    std::string_view payload;
    const SendOptions* options = nullptr;
};

// One call of send.lua: its arguments (validated; they view the payloads) and where each run of
// messages with equal options ends, which the reply is read by.
struct SendCall {
    ScriptArgs args;
    std::vector<std::size_t> run_ends;
};

// A delivery's lease handle: what ack, extend and release need.
struct LeaseRef {
    std::string id;
    std::uint64_t token = 0;
};

// One queue's operations, each one script call on a connection the caller provides: the pool
// for Queue, dedicated connections for a Consumer's threads. Validates input before any call.
class QueueCore {
  public:
    QueueCore(std::shared_ptr<ClientCore> client, std::string name, QueueOptions options);

    const std::string& name() const { return name_; }
    SendCoalescer& coalescer() { return coalescer_; }
    const QueueOptions& options() const { return options_; }
    ClientCore& client() { return *client_; }

    std::vector<SendResult> send(Connection& conn, std::span<const MessageRef> messages);
    // send in parts, for calls pipelined on one connection: the call, and the results from its
    // reply.
    SendCall send_call(std::span<const MessageRef> messages) const;
    std::vector<SendResult> send_results(const Reply& reply, std::span<const MessageRef> messages,
                                         const SendCall& call) const;
    const QueueKeys& keys() const { return keys_; }
    FetchResult fetch(Connection& conn, std::size_t max_count, Duration visibility);
    std::vector<AckResult> ack(Connection& conn, std::span<const LeaseRef> leases);
    NackResult nack(Connection& conn, const LeaseRef& lease, Duration delay, std::string_view error,
                    bool dead_now);
    std::vector<std::optional<TimePoint>> extend(Connection& conn, std::span<const LeaseRef> leases,
                                                 Duration visibility);
    std::vector<bool> release(Connection& conn, std::span<const LeaseRef> leases);
    CancelResult cancel(Connection& conn, std::string_view id);
    RescheduleResult reschedule(Connection& conn, std::string_view id,
                                std::optional<std::int64_t> at_ms, std::int64_t delay_ms);
    std::optional<MessageInfo> get(Connection& conn, std::string_view id);
    QueueStats stats(Connection& conn);
    std::vector<MessageInfo> list(Connection& conn, State state, Page page);
    // Requeue (scripts::kDeadRequeue) or purge (scripts::kDeadPurge) dead letters: the given ids,
    // or without ids the oldest `limit`. Returns {moved, dead letters left}.
    std::pair<std::size_t, std::size_t> dead_letters(Connection& conn, const ScriptSource& script,
                                                     std::span<const std::string> ids,
                                                     std::size_t limit);

  private:
    std::shared_ptr<ClientCore> client_;
    std::string name_;
    QueueOptions options_;
    QueueKeys keys_;
    SendCoalescer coalescer_{*this};
};

}  // namespace delayq::detail
