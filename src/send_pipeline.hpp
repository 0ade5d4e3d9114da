#pragma once

#include <cstddef>
#include <deque>
#include <exception>
#include <optional>
#include <span>
#include <vector>

#include "codec/send.hpp"
#include "delayq/types.hpp"
#include "redis/pool.hpp"
#include "redis/script.hpp"
#include "send_target.hpp"

namespace delayq::detail {

// One message of a send call, and its answer once the call is finished: a result or an error.
struct SendSlot {
    send_codec::MessageRef ref;
    std::optional<SendResult> result;
    std::exception_ptr error;
};

// Send calls pipelined on one pooled connection: up to kDepth in flight, finished in the order
// they were started. Redis runs one connection's commands in the order they arrive, so calls
// started in order also run in order, whatever queue each is for. Not thread-safe: one thread
// drives it.
class SendPipeline {
  public:
    static constexpr std::size_t kDepth = 2;

    explicit SendPipeline(ConnectionPool& pool) : pool_(pool) {}

    bool full() const;
    bool empty() const { return calls_.empty(); }

    // Starts a call for 1..kMaxBatch messages of `target`'s queue; `target` must outlive the
    // call's finish(). Never throws: failing to connect or to write is the call's answer, given
    // by finish().
    void start(const SendTarget& target, std::vector<SendSlot*> slots);

    struct Finished {
        std::vector<SendSlot*> slots;  // each with its result or error set
        // Set when the call as a whole failed (Redis unreachable or refusing), not when only
        // the script's own checks refused messages.
        std::exception_ptr failure;
    };
    // Waits for the oldest call's reply and answers its messages. Never throws.
    Finished finish();

    // Gives the connection back to the pool; only when empty().
    void release() { conn_.reset(); }

  private:
    struct Call {
        const SendTarget* target = nullptr;
        std::vector<SendSlot*> slots;
        std::vector<send_codec::MessageRef> refs;
        send_codec::Call
            call;  // views refs' payloads; kept for a rerun (missing function, NOSCRIPT)
        ScriptVia via = ScriptVia::kScript;
        std::optional<Reply> reply;
        std::exception_ptr error;  // failed to start, or to read the reply
        bool may_be_refused = false;
    };

    void read_reply(Call& call);
    // Sets each message's result or error; returns the failure of the call as a whole, if any.
    std::exception_ptr answer(Call& call);
    // Answers `slots` from their call's results, or a durable call's shortfall as each one's
    // DurabilityError, which is no failure of the call.
    void answer_sent(const SendTarget& target, std::span<SendSlot* const> slots, SentCall sent);

    ConnectionPool& pool_;
    std::optional<ConnectionPool::Lease> conn_;
    std::deque<Call> calls_;
    bool conn_failed_ = false;  // an I/O error broke conn_: replace it once no call is on it
};

}  // namespace delayq::detail
